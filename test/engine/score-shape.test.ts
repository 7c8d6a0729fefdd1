// The engine's hand-written score check against what it stands in for, EvaluatorScore.safeParse: it may only say
// "valid" where zod does, and then must return zod's own output (same keys, same order, defaults filled in, unknown
// keys dropped), or a score's bytes in the bundle would depend on which path judged it.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EVALUATOR_KINDS, EvaluatorScore } from '../../src/core/index.ts'
import { fastEvaluatorScore } from '../../src/engine/score-shape.ts'

const SEED = 20_251_202
const RUNS = 5_000

const count = fc.nat({ max: 50 })
const unit = fc.double({ min: 0, max: 1, noNaN: true })
const finding = fc.record(
  { type: fc.string({ minLength: 1 }), message: fc.string(), citations: fc.array(count, { maxLength: 3 }) },
  { requiredKeys: ['type', 'message'] },
)

/** A score zod accepts, merged as the engine merges an evaluator's answer, optional keys sometimes absent. */
const validInput = fc.record(
  {
    evaluatorId: fc.string({ minLength: 1 }),
    kind: fc.constantFrom(...EVALUATOR_KINDS),
    score: unit,
    passed: fc.boolean(),
    confidence: unit,
    costUsd: fc.double({ min: 0, max: 10, noNaN: true }),
    latencyMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    explanation: fc.string(),
    citations: fc.array(count, { maxLength: 4 }),
    findings: fc.array(finding, { maxLength: 3 }),
    error: fc.constant(null),
    unknownKey: fc.anything(),
  },
  { requiredKeys: ['evaluatorId', 'kind', 'score', 'passed', 'latencyMs', 'explanation', 'error'] },
)

const KEYS = [
  'evaluatorId',
  'kind',
  'score',
  'passed',
  'confidence',
  'costUsd',
  'latencyMs',
  'explanation',
  'citations',
  'findings',
  'error',
  'thrown',
] as const
/** Values at the edges of what the schema takes, beside anything at all. */
const oddValue = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    -0,
    -1,
    1.5,
    1.0000001,
    Number.NaN,
    Infinity,
    2 ** 53,
    '',
    'x',
    [],
    [-0],
    [1.5],
  ),
  fc.constantFrom(
    [{ type: '', message: 'm' }],
    [{ type: 't', message: 1 }],
    [{ type: 't', message: 'm', citations: [-1] }],
  ),
  fc.constantFrom([undefined], [null], { type: 'E', message: 'm' }, true, 0, 1),
  fc.anything(),
)
/** An edit: one key set to an odd value, or removed. */
const edit = fc.tuple(fc.constantFrom(...KEYS), fc.option(oddValue, { nil: 'remove' as const }))

const edited = fc.tuple(validInput, fc.array(edit, { maxLength: 2 })).map(([input, edits]) => {
  const out: Record<string, unknown> = { ...input }
  for (const [key, value] of edits) {
    if (value === 'remove') delete out[key]
    else out[key] = value
  }
  return out
})

function expectSameAsZod(input: Record<string, unknown>): boolean {
  const fast = fastEvaluatorScore(input)
  if (fast === undefined) return false
  const parsed = EvaluatorScore.safeParse(input)
  expect(parsed.success).toBe(true)
  if (!parsed.success) return false
  expect(fast).toStrictEqual(parsed.data)
  expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data))
  expect(Object.keys(fast)).toEqual(Object.keys(parsed.data))
  fast.findings.forEach((f, i) => expect(Object.keys(f)).toEqual(Object.keys(parsed.data.findings[i]!)))
  return true
}

describe('fastEvaluatorScore', () => {
  it('says valid only where EvaluatorScore accepts, and then returns exactly its parsed output', () => {
    let accepted = 0
    let rejectedByZod = 0
    fc.assert(
      fc.property(edited, (input) => {
        if (expectSameAsZod(input)) accepted++
        else if (!EvaluatorScore.safeParse(input).success) rejectedByZod++
      }),
      { seed: SEED, numRuns: RUNS },
    )
    // Both sides of the line were tried, or the property above proved nothing.
    expect(accepted).toBeGreaterThan(50)
    expect(rejectedByZod).toBeGreaterThan(RUNS / 4)
  })

  it('takes the fast path for the scores real evaluators return', () => {
    const ids = { evaluatorId: 'exact', kind: 'deterministic', latencyMs: 0.125, error: null }
    const typical: Record<string, unknown>[] = [
      { score: 1, passed: true, explanation: 'matched', ...ids },
      {
        score: 0,
        passed: false,
        explanation: 'no',
        citations: [3, 1],
        costUsd: 0.002,
        confidence: 0.9,
        ...ids,
      },
      {
        score: 0.5,
        passed: false,
        explanation: 'loop',
        findings: [
          { type: 'loop', message: 'calc x3', citations: [2, 3, 4] },
          { type: 'slow', message: 's' },
        ],
        note: 'dropped',
        ...ids,
      },
    ]
    for (const input of typical) expect(expectSameAsZod(input)).toBe(true)
  })

  it('leaves to zod what it would keep as a key holding undefined, and -0', () => {
    const ids = { evaluatorId: 'e', kind: 'deterministic', latencyMs: 1, error: null }
    for (const odd of [
      { confidence: undefined },
      { thrown: undefined },
      { score: -0 },
      { citations: [-0] },
    ]) {
      const input = { score: 1, passed: true, explanation: 'x', ...ids, ...odd }
      expect(fastEvaluatorScore(input)).toBeUndefined()
      expect(EvaluatorScore.safeParse(input).success).toBe(true)
    }
  })
})
