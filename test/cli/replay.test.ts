import { describe, expect, it } from 'vitest'
import { compareRuns } from '../../src/bundles/index.ts'
import { parseReplayLine } from '../../src/cli/commands/replay.ts'
import { isAgentEvalOpsError, type TrialRecord } from '../../src/core/index.ts'
import { makeTrials } from '../bundles/fixtures.ts'
import { ev, trace } from '../evaluators/trace-fixture.ts'

describe('parseReplayLine', () => {
  it('splits what replay-command.ts quotes, skipping comments', () => {
    const text =
      "# from the Vitest root\nnpx vitest run --project evals -t 'it'\\''s a task' evals/x.eval.ts\n# env"
    expect(parseReplayLine(text)).toEqual([
      'npx',
      'vitest',
      'run',
      '--project',
      'evals',
      '-t',
      "it's a task",
      'evals/x.eval.ts',
    ])
    expect(parseReplayLine('npx agentevalops run configs/toy_smoke.yaml --shard=1/2')).toEqual([
      'npx',
      'agentevalops',
      'run',
      'configs/toy_smoke.yaml',
      '--shard=1/2',
    ])
  })

  it.each([
    ['a shell operator', 'npx vitest run; rm -rf ~'],
    ['a substitution', 'npx vitest run $(curl x)'],
    ['another program', 'rm -rf /'],
    ['npx of something else', 'npx cowsay hi'],
    ['an open quote', "npx vitest run -t 'oops"],
    ['nothing', '# only a comment'],
  ])('refuses %s: a bundle is input, not a script', (_what, text) => {
    let error: unknown
    try {
      parseReplayLine(text)
    } catch (e) {
      error = e
    }
    expect(isAgentEvalOpsError(error, 'BUNDLE_INVALID')).toBe(true)
  })
})

describe('compareRuns', () => {
  const events = trace(
    ev.call('search', { q: 'x' }),
    ev.result('search', ['a']),
    ev.answer('a'),
    ev.terminal('completed'),
  )
  const trials = (cost: number): TrialRecord[] =>
    makeTrials({ tasks: ['task-test'], trials: 1 }).map((t) => ({
      ...t,
      usage: { ...t.usage, costUsd: cost },
    }))

  it('matches identical behaviour whatever the timings, and a cost within ±5%', () => {
    const slower = events.map((e) => ({ ...e, ts: '2030-01-01T00:00:00.000Z' }))
    const [c] = compareRuns(
      { trials: trials(0.1), events, gitSha: 'a' },
      { trials: trials(0.104), events: slower, gitSha: 'a' },
    )
    expect(c).toMatchObject({ verdict: 'MATCH', reasons: [], step: null })
  })

  it('names the first differing step, a cost beyond 5%, and says CODE_CHANGED when the commit differs', () => {
    const changed = trace(
      ev.call('search', { q: 'x' }),
      ev.result('search', ['b']),
      ev.answer('b'),
      ev.terminal('completed'),
    )
    const [differ] = compareRuns(
      { trials: trials(0.1), events, gitSha: 'a' },
      { trials: trials(0.2), events: changed, gitSha: 'a' },
    )
    expect(differ).toMatchObject({ verdict: 'DIFFER', step: 1 })
    expect(differ!.reasons).toEqual([
      'step 1: agent.tool_result differs',
      'cost $0.200000, not $0.100000 (beyond ±5%)',
    ])
    const [code] = compareRuns(
      { trials: trials(0.1), events, gitSha: 'a' },
      { trials: trials(0.1), events: changed, gitSha: 'b' },
    )
    expect(code!.verdict).toBe('CODE_CHANGED')
    const [missing] = compareRuns(
      { trials: trials(0.1), events, gitSha: 'a' },
      { trials: [], events: [], gitSha: 'a' },
    )
    expect(missing).toMatchObject({ verdict: 'DIFFER', reasons: ['the replay has no such trial'] })
  })
})
