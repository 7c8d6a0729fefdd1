import { describe, expect, it } from 'vitest'
import { checkWithinBudget } from '../../src/evaluators/index.ts'
import { ev, trace } from './trace-fixture.ts'

describe('checkWithinBudget', () => {
  const events = trace(
    ev.model({ tokens: 1000, costUsd: 0.1 }), // 0: 1000 tokens, $0.10
    ev.call('search', {}, { tokens: 500, costUsd: 0.1 }), // 1: 1500, $0.20
    ev.model({ tokens: 2000, costUsd: 0.1 }), // 2: 3500, $0.30 (float sum 0.30000000000000004)
    ev.model({ tokens: 2000, costUsd: 0.2 }), // 3: 5500, $0.50
    ev.answer('done'), // 4
    ev.terminal('completed'), // 5, at 500 ms
  )

  it('passes within every budget and reports the usage', () => {
    const r = checkWithinBudget(events, { tokens: 6000, costUsd: 0.5, turns: 3, seconds: 1 })
    expect(r).toEqual({
      pass: true,
      message: 'within budget (tokens 5500/6000, cost $0.5000/$0.5000, turns 3/3, seconds 0.5/1)',
      steps: [],
    })
  })

  it('names the first step where each budget was crossed', () => {
    const r = checkWithinBudget(events, { tokens: 5000, costUsd: 0.25, turns: 1 })
    expect(r.pass).toBe(false)
    expect(r.message).toBe(
      'over budget: tokens 5500 > 5000 (crossed at step 3); cost $0.5000 > $0.2500 (crossed at step 2); ' +
        'turns 3 > 1 (crossed at step 2)',
    )
    expect(r.steps).toEqual([2, 3])
  })

  it('does not count a float rounding error as crossing', () => {
    expect(checkWithinBudget(events.slice(0, 3), { costUsd: 0.3 }).pass).toBe(true)
  })

  it('counts tool calls and final answers as turns when the trace has no model calls', () => {
    const scripted = trace(ev.call('a'), ev.result('a'), ev.call('b'), ev.answer('x'))
    expect(checkWithinBudget(scripted, { turns: 3 }).pass).toBe(true)
    expect(checkWithinBudget(scripted, { turns: 2 })).toMatchObject({ pass: false, steps: [3] })
  })

  it('does not charge the agent for evaluator and policy events', () => {
    const withJudge = trace(
      ev.model({ tokens: 100, costUsd: 0.01 }),
      ev.score('judge', true, { tokens: 900, costUsd: 1 }),
    )
    expect(checkWithinBudget(withJudge, { tokens: 100, costUsd: 0.01 }).pass).toBe(true)
  })

  it('measures seconds from the first event to the terminal one, naming the first late step', () => {
    const slow = trace(
      ev.model({ atMs: 0 }),
      ev.call('wait', {}, { atMs: 400 }),
      ev.answer('x', { atMs: 2500 }),
      ev.terminal('completed', { atMs: 2600 }),
    )
    const r = checkWithinBudget(slow, { seconds: 2 })
    expect(r).toEqual({
      pass: false,
      message: 'over budget: seconds 2.6 > 2 (crossed at step 2)',
      steps: [2],
    })
  })

  it("prefers the result's wall time when given", () => {
    const quick = trace(ev.answer('x', { atMs: 0 }), ev.terminal('completed', { atMs: 100 }))
    expect(checkWithinBudget({ events: quick }, { seconds: 1 }).pass).toBe(true)
    const r = checkWithinBudget({ events: quick, result: { wallSeconds: 3 } }, { seconds: 1 })
    // No event is late by its timestamp, so the terminal step is the one to blame.
    expect(r).toEqual({ pass: false, message: 'over budget: seconds 3 > 1 (crossed at step 1)', steps: [1] })
  })

  it('passes an empty trace and an empty budget', () => {
    expect(checkWithinBudget([], { tokens: 0, seconds: 1 }).pass).toBe(true)
    expect(checkWithinBudget(events, {}).message).toBe('within budget (no budget given)')
  })
})
