import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError, type JsonValue } from '../../../src/core/index.ts'
import { analyzeTraceQuality, findCycles } from '../../../src/evaluators/trace-quality/index.ts'
import { ev, trace, type Draft } from '../trace-fixture.ts'

const observe = (text: string): Draft => ({ kind: 'agent.observation', payload: { text } })

/** `passes` rounds of search → open, each result given by `results(round)`. */
function searchOpen(
  passes: number,
  results: (round: number) => [JsonValue, JsonValue] = () => [[], 'not found'],
) {
  return Array.from({ length: passes }, (_, round) => {
    const [hits, page] = results(round)
    return [
      ev.call('search', { q: 'a' }),
      ev.result('search', hits),
      ev.call('open', { id: 1 }),
      ev.result('open', page),
    ]
  }).flat()
}

describe('repeated_call', () => {
  const events = trace(
    ev.plan('go'), // 0
    ev.call('search', { q: 'x', page: 1 }), // 1
    ev.result('search', []), // 2
    ev.call('search', { page: 1, q: 'x' }), // 3: same arguments, other key order
    ev.result('search', []), // 4
    ev.call('search', { q: 'x', page: 1 }), // 5
    ev.result('search', []), // 6
    ev.answer('none'), // 7
  )

  it('names the tool, the count and every repeat', () => {
    expect(analyzeTraceQuality(events).findings).toEqual([
      {
        type: 'repeated_call',
        message: 'tool "search" called 3 times with the same arguments at steps 1, 3, 5',
        citations: [1, 3, 5],
      },
    ])
  })

  it('counts only calls with the same canonical arguments, from minRepeats on', () => {
    const varied = trace(
      ev.call('search', { q: 'x' }),
      ev.call('search', { q: 'y' }),
      ev.call('search', { q: 1 }),
      ev.call('search', { q: '1' }), // a string is not the number
    )
    expect(analyzeTraceQuality(varied).findings).toEqual([])
    expect(analyzeTraceQuality(events, { minRepeats: 4 }).findings.map((f) => f.type)).not.toContain(
      'repeated_call',
    )
    const twice = trace(ev.call('fetch', { url: 'u' }), ev.call('fetch', { url: 'u' }))
    expect(analyzeTraceQuality(twice, { minRepeats: 2 }).findings).toEqual([
      {
        type: 'repeated_call',
        message: 'tool "fetch" called 2 times with the same arguments at steps 0, 1',
        citations: [0, 1],
      },
    ])
  })
  it('does not count a repeat that brought a new result: a test re-run after each edit is progress', () => {
    const run = (output: string): Draft[] => [
      ev.call('bash', { command: 'python reproduce.py' }),
      ev.result('bash', output),
    ]
    const edit = (n: number): Draft[] => [ev.call('edit', { line: n }), ev.result('edit', `edited ${n}`)]
    const events = trace(
      ...run('TypeError: unsupported operand'), // 0
      ...edit(1),
      ...run('KeyError: PixelRepresentation'), // 4
      ...edit(2),
      ...run('Script completed successfully'), // 8
      ev.answer('Fixed: the script completes successfully.'),
    )
    expect(analyzeTraceQuality(events).findings).toEqual([])
  })

  it('counts the repeats that brought nothing new, wherever they are, and only those', () => {
    const run = (output: JsonValue): Draft[] => [ev.call('run_tests'), ev.result('run_tests', output)]
    const events = trace(
      ...run('1 failed'), // 0
      ev.call('edit', { n: 1 }), // 2
      ...run('2 failed'), // 3: new
      ev.call('edit', { n: 2 }), // 5
      ...run('1 failed'), // 6: as at step 0
      ev.call('edit', { n: 3 }), // 8
      ...run('1 failed'), // 9: as at step 0 again
      ev.answer('Still 1 failed.'),
    )
    expect(analyzeTraceQuality(events).findings.map((f) => [f.type, f.citations])).toEqual([
      ['repeated_call', [0, 6, 9]],
    ])
  })

  it('counts repeats that fail with the same error, but not the same call failing differently', () => {
    const failing = (error: string): Draft[] => [
      ev.call('book', { flight: 'HAT030' }),
      { kind: 'agent.tool_result', payload: { tool: 'book', result: error, isError: true } },
      observe('Please try again.'),
    ]
    const same = trace(...failing('not available'), ...failing('not available'), ...failing('not available'))
    expect(analyzeTraceQuality(same).findings.map((f) => [f.type, f.citations])).toEqual([
      ['repeated_call', [0, 3, 6]],
    ])
    const different = trace(
      ...failing('not available'),
      ...failing('sold out'),
      ...failing('payment declined'),
    )
    expect(analyzeTraceQuality(different).findings.map((f) => f.type)).not.toContain('repeated_call')
  })
})

describe('cycle', () => {
  it('finds a block of calls repeated with nothing new learned, citing every call in it', () => {
    const events = trace(...searchOpen(3), ev.answer('gave up'))
    expect(analyzeTraceQuality(events).findings).toEqual([
      {
        type: 'cycle',
        message:
          'cycle search → open repeated 3 times with no new observation: 6 calls at steps 0, 2, 4, 6, 8, 10',
        citations: [0, 2, 4, 6, 8, 10],
      },
    ])
  })

  it('is not a cycle when every pass brings new results (a true negative)', () => {
    const events = trace(
      ...searchOpen(3, (round) => [[`hit ${round}`], `page ${round}`]),
      ev.answer('read three pages'),
    )
    const r = findCycles(events)
    expect(r).toEqual({
      pass: true,
      message: 'no cycle of 2 to 4 calls repeated 3 or more times without a new observation',
      steps: [],
      findings: [],
    })
    // Nor are they repeats: each pass brought something new.
    expect(analyzeTraceQuality(events).findings).toEqual([])
  })

  it('is not a cycle when a new observation arrives in every pass', () => {
    const drafts = searchOpen(3)
    const withNotes = [
      ...drafts.slice(0, 4),
      observe('note 1'),
      ...drafts.slice(4, 8),
      observe('note 2'),
      ...drafts.slice(8),
    ]
    expect(findCycles(trace(...withNotes)).pass).toBe(true)
    // The same observation again is nothing new.
    const sameNote = [
      ...drafts.slice(0, 4),
      observe('note'),
      ...drafts.slice(4, 8),
      observe('note'),
      ...drafts.slice(8),
    ]
    expect(findCycles(trace(...sameNote)).steps).toEqual([0, 2, 5, 7, 10, 12])
  })

  it('needs minCycleRepeats full passes, and cites a trailing partial pass too', () => {
    expect(findCycles(trace(...searchOpen(2))).pass).toBe(true)
    const two = findCycles(trace(...searchOpen(2)), { minCycleRepeats: 2 })
    expect(two.message).toBe(
      'cycle search → open repeated 2 times with no new observation: 4 calls at steps 0, 2, 4, 6',
    )
    const partial = findCycles(
      trace(...searchOpen(3), ev.call('search', { q: 'a' }), ev.result('search', [])),
    )
    expect(partial.message).toBe(
      'cycle search → open repeated 3 times with no new observation: 7 calls at steps 0, 2, 4, 6, 8, 10, 12',
    )
    expect(partial.findings).toEqual([{ type: 'cycle', message: partial.message, citations: partial.steps }])
  })

  it('finds longer cycles up to maxCycleLength, reported once at their shortest period', () => {
    const abc = ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'].map((tool) => ev.call(tool))
    const r = findCycles(trace(...abc))
    expect(r.message).toBe(
      'cycle a → b → c repeated 3 times with no new observation: 9 calls at steps 0, 1, 2, 3, 4, 5, 6, 7, 8',
    )
    expect(findCycles(trace(...abc), { maxCycleLength: 2 }).pass).toBe(true)
    // A,B,A,B,A,B is also periodic with period 4; only the 2-call cycle is reported.
    expect(findCycles(trace(...searchOpen(3))).findings).toHaveLength(1)
  })

  it('leaves repeats a cycle explains to the cycle, but reports repeats outside it', () => {
    expect(analyzeTraceQuality(trace(...searchOpen(3))).findings.map((f) => f.type)).toEqual(['cycle'])
    const events = trace(
      ...searchOpen(3),
      ev.call('other'),
      ev.call('search', { q: 'a' }),
      ev.result('search', []),
    )
    // The fourth search (step 13, the same result again) is outside the cycle, so the search group is reported
    // whole; open's is not.
    expect(analyzeTraceQuality(events).findings.map((f) => [f.type, f.citations])).toEqual([
      ['repeated_call', [0, 4, 8, 13]],
      ['cycle', [0, 2, 4, 6, 8, 10]],
    ])
  })

  it('rejects nonsensical options', () => {
    for (const opts of [{ maxCycleLength: 1 }, { minCycleRepeats: 1 }, { minCycleRepeats: 2.5 }]) {
      try {
        findCycles([], opts)
        expect.unreachable()
      } catch (e) {
        expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
      }
    }
  })
})
