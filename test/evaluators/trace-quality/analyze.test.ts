import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError, type TraceEvent } from '../../../src/core/index.ts'
import {
  analyzeTraceQuality,
  DEFAULT_FAIL_ON,
  traceQuality,
  TRACE_QUALITY_FINDING_TYPES,
  type TraceQualityOptions,
} from '../../../src/evaluators/trace-quality/index.ts'
import { ev, trace, viewOf } from '../trace-fixture.ts'

/** search → open three times over, learning nothing: one cycle at steps 0, 2, 4, 6, 8, 10. */
const cycling = () =>
  [1, 2, 3].flatMap(() => [
    ev.call('search', { q: 'a' }),
    ev.result('search', []),
    ev.call('open', { id: 1 }),
    ev.result('open', 'not found'),
  ])

function configError(run: () => unknown): string {
  try {
    run()
  } catch (e) {
    expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
    expect((e as { hint?: string }).hint).toBeTruthy()
    return (e as Error).message
  }
  return expect.unreachable('expected a CONFIG_INVALID error')
}

describe('analyzeTraceQuality score', () => {
  it('gives an empty trace, and a clean one, a perfect score', () => {
    expect(analyzeTraceQuality([])).toEqual({ score: 1, passed: true, findings: [], toolCalls: 0 })
    const clean = trace(ev.call('search', { q: 'a' }), ev.result('search', 'Paris'), ev.answer('Paris'))
    expect(analyzeTraceQuality(clean)).toEqual({ score: 1, passed: true, findings: [], toolCalls: 1 })
  })

  it('is 1 − wasted calls / tool calls', () => {
    // 6 calls, the 4 after the cycle's first pass wasted; 2 more calls that do fine.
    const events = trace(...cycling(), ev.call('x'), ev.result('x', 'a'), ev.call('y'), ev.result('y', 'b'))
    expect(analyzeTraceQuality(events).score).toBeCloseTo(1 - 4 / 8)
  })

  it('halves the score for each hallucinated tool result, whatever else', () => {
    const one = trace(ev.answer('According to get_weather it is 18C.'))
    expect(analyzeTraceQuality(one).score).toBe(0.5)
    const two = trace(ev.result('orphan', 'x'), ev.answer('According to get_weather it is 18C.'))
    expect(analyzeTraceQuality(two).score).toBe(0.25)
    const withWaste = trace(...cycling(), ev.answer('According to get_weather it is 18C.'))
    expect(analyzeTraceQuality(withWaste).score).toBeCloseTo((1 - 4 / 6) * 0.5)
  })

  it('counts a call blamed by several findings once', () => {
    const events = trace(
      ev.call('a'), // 0: the first "a", before the cycle
      ev.result('a', 'alpha bravo charlie delta'),
      ev.call('c'), // 2
      ev.result('c', 'z'),
      ...[1, 2, 3].flatMap(() => [
        ev.call('a'), // 4, 8, 12: the same result again, so repeats as well as the cycle's
        ev.result('a', 'alpha bravo charlie delta'),
        ev.call('b'),
        ev.result('b', 'x'),
      ]),
      ev.answer('nothing'),
    )
    const r = analyzeTraceQuality(events)
    expect(r.findings.map((f) => [f.type, f.citations])).toEqual([
      ['repeated_call', [0, 4, 8, 12]],
      ['cycle', [4, 6, 8, 10, 12, 14]],
    ])
    // Wasted: calls 4..7 (the cycle after its first pass), 2, 4, 6 (repeats after the first "a"): 5 distinct of 8.
    expect(r.score).toBeCloseTo(1 - 5 / 8)
  })
})

describe('analyzeTraceQuality findings', () => {
  it('orders findings by their first cited step', () => {
    const events = trace(
      ev.result('ghost', 'x'), // 0: orphan
      ev.call('read', { p: 1 }), // 1
      ev.result('read', 'a'), // 2
      ev.call('read', { p: 1 }), // 3: redundant
      ev.result('read', 'a'), // 4
      ev.call('fetch'), // 5
      { kind: 'agent.tool_result', payload: { tool: 'fetch', result: 'boom', isError: true } }, // 6
      ev.call('fetch'), // 7: retry
    )
    expect(analyzeTraceQuality(events).findings.map((f) => [f.type, f.citations])).toEqual([
      ['hallucinated_tool_result', [0]],
      ['redundant_call', [1, 3]],
      ['retry_without_change', [5, 7]],
    ])
  })

  it('fails on the failOn types only', () => {
    const redundant = trace(ev.call('r'), ev.result('r', 'a'), ev.call('r'), ev.result('r', 'a'))
    expect(analyzeTraceQuality(redundant).passed).toBe(true)
    expect(analyzeTraceQuality(redundant, { failOn: ['redundant_call'] }).passed).toBe(false)
    const cycle = trace(...cycling())
    expect(analyzeTraceQuality(cycle).passed).toBe(false)
    expect(analyzeTraceQuality(cycle, { failOn: [] }).passed).toBe(true)
    expect(DEFAULT_FAIL_ON).toEqual([
      'repeated_call',
      'cycle',
      'retry_without_change',
      'hallucinated_tool_result',
    ])
    expect(TRACE_QUALITY_FINDING_TYPES.filter((t) => !DEFAULT_FAIL_ON.includes(t))).toEqual([
      'redundant_call',
      'dead_end',
    ])
  })

  it('reads the trace in step order, whatever order the events come in', () => {
    const events = trace(...cycling())
    const shuffled = [...events].reverse()
    expect(analyzeTraceQuality(shuffled)).toEqual(analyzeTraceQuality(events))
  })

  it('tells thousands of distinct calls apart and finds the one loop among them', () => {
    const distinct = Array.from({ length: 3000 }, (_, i) => [
      ev.call('get', { id: i, tags: { n: i } }),
      ev.result('get', { id: i }),
    ]).flat()
    const events = trace(
      ...distinct,
      ev.call('get', { tags: { n: 7 }, id: 7 }),
      ev.result('get', { id: 7 }),
      ev.call('get', { id: 7, tags: { n: 7 } }),
      ev.result('get', { id: 7 }),
    )
    expect(analyzeTraceQuality(events).findings).toEqual([
      {
        type: 'repeated_call',
        message: 'tool "get" called 3 times with the same arguments at steps 14, 6000, 6002',
        citations: [14, 6000, 6002],
      },
    ])
  })

  // Speed is measured by bench/trace-quality.mjs (per-event cost at 5k, 50k, 500k), not asserted here.
  it('finds a cycle hidden in a 50k-event trace, and nothing else', () => {
    const events: TraceEvent[] = []
    const base = trace(ev.model(), ev.call('x'), ev.result('x', 'y'))
    const stamp = (e: TraceEvent, payload: TraceEvent['payload']) =>
      ({ ...e, step: events.length, payload }) as TraceEvent
    for (let i = 0; events.length < 50_000; i++) {
      if (i === 8000) {
        for (let k = 0; k < 3; k++) {
          events.push(stamp(base[1]!, { tool: 'search', args: { q: 'stuck' } }))
          events.push(stamp(base[2]!, { tool: 'search', result: [] }))
          events.push(stamp(base[1]!, { tool: 'open', args: { id: 0 } }))
          events.push(stamp(base[2]!, { tool: 'open', result: 'missing' }))
        }
      }
      events.push(stamp(base[0]!, { model: 'm', text: `step ${i}` }))
      events.push(stamp(base[1]!, { tool: 'get', args: { id: i } }))
      events.push(stamp(base[2]!, { tool: 'get', result: { id: i, name: `item ${i}` } }))
    }
    const r = analyzeTraceQuality(events)
    expect(r.findings.map((f) => [f.type, f.citations])).toEqual([
      ['cycle', [24000, 24002, 24004, 24006, 24008, 24010]],
    ])
  })
})

describe('options', () => {
  it('rejects nonsensical thresholds, unknown types and unknown keys, with a hint', () => {
    const bad: unknown[] = [
      { minRepeats: 1 },
      { minRepeats: 2.5 },
      { minRepeats: '3' },
      { maxCycleLength: 1 },
      { minCycleRepeats: 0 },
      { idempotentTools: 'read' },
      { idempotentTools: [1] },
      { failOn: ['loop'] },
      { minRepeat: 3 },
      null,
      [],
    ]
    for (const opts of bad) configError(() => analyzeTraceQuality([], opts as TraceQualityOptions))
    expect(configError(() => analyzeTraceQuality([], { minRepeats: 1 }))).toBe(
      'analyzeTraceQuality: minRepeats must be an integer of at least 2, got 1 Leave it out to use the default (3).',
    )
    expect(configError(() => analyzeTraceQuality([], { failOn: ['loop'] } as never))).toMatch(
      /^analyzeTraceQuality: failOn names unknown finding types "loop" Finding types: repeated_call, cycle, /,
    )
    expect(configError(() => analyzeTraceQuality([], { minRepeat: 3 } as never))).toMatch(
      /^analyzeTraceQuality: unknown option "minRepeat" Known options: minRepeats, /,
    )
  })
})

describe('traceQuality evaluator', () => {
  it('checks its options when it is created, not when it runs', () => {
    expect(configError(() => traceQuality({ minRepeats: 1 }))).toMatch(/^traceQuality: minRepeats must be/)
    configError(() => traceQuality({ id: '' }))
    expect(traceQuality({ id: 'tq', minRepeats: 2 }).id).toBe('tq')
  })

  it('scores a clean trial', async () => {
    const evaluator = traceQuality()
    expect(evaluator).toMatchObject({ id: 'trace-quality', kind: 'trace_quality' })
    const events = trace(ev.call('search', { q: 'a' }), ev.result('search', 'Paris'), ev.answer('Paris'))
    expect(await evaluator.evaluate(viewOf(events))).toEqual({
      score: 1,
      passed: true,
      costUsd: 0,
      explanation: 'no trace-quality issues in 1 tool call',
      citations: [],
      findings: [],
    })
  })

  it('fails a cycling trial, citing the findings', async () => {
    const events = trace(...cycling(), ev.answer('gave up'))
    const out = await traceQuality().evaluate(viewOf(events))
    expect(out).toMatchObject({
      passed: false,
      explanation:
        'failed with 1 cycle: cycle search → open repeated 3 times with no new observation: 6 calls at steps 0, 2, 4, 6, 8, 10',
      citations: [0, 2, 4, 6, 8, 10],
    })
    expect(out.score).toBeCloseTo(1 / 3)
    expect(out.findings).toHaveLength(1)
  })

  it('summarises many findings and quotes the first three', async () => {
    const events = trace(
      ...['a', 'b', 'c', 'd'].flatMap((t) => [
        ev.call(t),
        ev.result(t, 'same'),
        ev.call(t),
        ev.result(t, 'same'),
      ]),
    )
    const out = await traceQuality().evaluate(viewOf(events))
    expect(out.explanation).toBe(
      'passed with 4 redundant_call: ' +
        'tool "a" called again at step 2 with the same arguments as at step 0, whose result (step 1) it already had; ' +
        'tool "b" called again at step 6 with the same arguments as at step 4, whose result (step 5) it already had; ' +
        'tool "c" called again at step 10 with the same arguments as at step 8, whose result (step 9) it already had; ' +
        'and 1 more',
    )
    expect(out.citations).toEqual([0, 2, 4, 6, 8, 10, 12, 14])
    expect(out.score).toBe(0.5)
  })
})
