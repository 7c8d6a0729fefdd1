import { describe, expect, it } from 'vitest'
import { checkPolicyPasses, checkTerminatedWith } from '../../src/evaluators/index.ts'
import { ev, trace } from './trace-fixture.ts'

describe('checkTerminatedWith', () => {
  it('passes on the matching reason and cites the terminal step', () => {
    const events = trace(ev.model(), ev.answer('x'), ev.terminal('completed'))
    expect(checkTerminatedWith(events, 'completed')).toEqual({
      pass: true,
      message: 'the trial ended with "completed" at step 2',
      steps: [2],
    })
  })

  it('fails on another reason, naming it, the step and the error', () => {
    const events = trace(
      ev.model({ costUsd: 0.6 }),
      ev.terminal('limit_cost', {}, 'cost limit $0.50 reached'),
    )
    expect(checkTerminatedWith(events, 'completed')).toEqual({
      pass: false,
      message:
        'expected the trial to end with "completed", but it ended with "limit_cost" at step 1 (error: cost limit $0.50 reached)',
      steps: [1],
    })
  })

  it('fails a trace without a terminal event, or with more than one', () => {
    expect(checkTerminatedWith(trace(ev.model()), 'completed')).toMatchObject({ pass: false, steps: [] })
    const twice = checkTerminatedWith(trace(ev.terminal('completed'), ev.terminal('completed')), 'completed')
    expect(twice).toEqual({
      pass: false,
      message: 'the trace has 2 agent.terminal events, at steps 0, 1',
      steps: [0, 1],
    })
  })
})

describe('checkPolicyPasses', () => {
  it('passes when no verdict is FAIL (WARN included)', () => {
    const events = trace(
      ev.answer('x'),
      ev.verdict('cost-ceiling', 'WARN'),
      ev.verdict('tool-access', 'PASS'),
    )
    expect(checkPolicyPasses(events)).toEqual({
      pass: true,
      message: 'no policy check failed (2 verdicts)',
      steps: [],
    })
  })

  it('names every failed checker, its step and its findings', () => {
    const events = trace(
      ev.call('delete_database', { name: 'staging' }),
      ev.answer('done'),
      ev.verdict('tool-access', 'FAIL', [{ message: 'tool "delete_database" is denied; called at step 0' }]),
      ev.verdict('cost-ceiling', 'PASS'),
      ev.verdict('secrets', 'FAIL'),
    )
    expect(checkPolicyPasses(events)).toEqual({
      pass: false,
      message:
        'policy "tool-access" failed at step 2: tool "delete_database" is denied; called at step 0; ' +
        'policy "secrets" failed at step 4',
      steps: [2, 4],
    })
  })
})
