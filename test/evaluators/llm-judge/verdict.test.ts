import { describe, expect, it } from 'vitest'
import { parseVerdict } from '../../../src/evaluators/llm-judge/index.ts'

const steps = new Set([0, 1, 2, 3])
const json = (v: Record<string, unknown>) =>
  JSON.stringify({ score: 0.8, passed: true, reasoning: 'fine', citations: [1], ...v })

describe('parseVerdict', () => {
  it('reads a bare JSON verdict, sorting and de-duplicating its citations', () => {
    expect(parseVerdict(json({ citations: [3, 1, 3] }), steps)).toEqual({
      ok: true,
      verdict: { score: 0.8, passed: true, reasoning: 'fine', citations: [1, 3] },
    })
  })

  it('tolerates a ```json fence and a sentence around the object', () => {
    expect(parseVerdict('```json\n' + json({}) + '\n```', steps).ok).toBe(true)
    expect(parseVerdict('```\n' + json({}) + '\n```', steps).ok).toBe(true)
    expect(parseVerdict(`Here is my verdict: ${json({})} Hope it helps.`, steps).ok).toBe(true)
  })

  it('rejects text without JSON, JSON that is not a verdict, and empty replies', () => {
    expect(parseVerdict('The agent did well.', steps)).toEqual({
      ok: false,
      problem: 'no JSON object found in "The agent did well."',
    })
    expect(parseVerdict('', steps)).toEqual({ ok: false, problem: 'the reply has no text' })
    expect(parseVerdict('[1, 2]', steps).ok).toBe(false)
    const cases = [
      json({ score: 1.5 }),
      json({ score: '0.8' }),
      json({ passed: 'yes' }),
      json({ citations: [1.5] }),
      JSON.stringify({ score: 1, passed: true, reasoning: 'r' }),
    ]
    for (const text of cases) {
      const parsed = parseVerdict(text, steps)
      expect(parsed.ok, text).toBe(false)
      if (!parsed.ok) expect(parsed.problem).toContain('the JSON is not a verdict')
    }
  })

  it('rejects citations of steps that are not in the trace', () => {
    expect(parseVerdict(json({ citations: [2, 7, 9] }), steps)).toEqual({
      ok: false,
      problem: 'it cites step(s) 7, 9, which are not in the transcript',
    })
  })
})
