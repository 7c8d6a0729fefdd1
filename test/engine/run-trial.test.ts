import { describe, expect, it, vi } from 'vitest'
import {
  AgentEvalOpsError,
  TrialRecord,
  type AgentRunner,
  type Evaluator,
  type TraceEvent,
} from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import {
  answeringRunner,
  baseOptions,
  fixedChecker,
  fixedEvaluator,
  inlineRunner,
  kinds,
  sleep,
  task,
} from './helpers.ts'

const terminals = (events: readonly TraceEvent[]) => events.filter((e) => e.kind === 'agent.terminal')

describe('runTrial outcomes', () => {
  it('passes a successful run whose evaluators and checkers agree, with measured usage', async () => {
    const { record, result, events } = await runTrial(
      baseOptions({ evaluators: [fixedEvaluator(true)], policy: [fixedChecker('PASS')] }),
    )
    expect(record.outcome).toBe('passed')
    expect(record.passed).toBe(true)
    expect(result).toMatchObject({
      success: true,
      finalAnswer: '2',
      terminatedBy: 'completed',
      totalTokens: 10,
      totalCostUsd: 0.001,
      turns: 1,
      error: null,
    })
    expect(record.usage).toMatchObject({ tokens: 10, costUsd: 0.001, turns: 1 })
    expect(record.runner).toEqual({ name: 'inline', kind: 'test', config: {} })
    expect(record).toMatchObject({ runId: 'run-1', taskId: task.id, taskChecksum: task.checksum, trial: 0 })
    expect(record.eventCount).toBe(events.length)
    expect(record.scores[0]).toMatchObject({
      evaluatorId: 'exact',
      kind: 'deterministic',
      score: 1,
      passed: true,
    })
    expect(record.scores[0]?.latencyMs).toBeGreaterThanOrEqual(0)
    // Plain JSON, valid against its own schema.
    expect(JSON.parse(JSON.stringify(record))).toEqual(record)
    expect(TrialRecord.parse(record)).toEqual(record)
  })

  it('fails when an evaluator does not pass, or the agent claims no success', async () => {
    expect((await runTrial(baseOptions({ evaluators: [fixedEvaluator(false)] }))).record.outcome).toBe(
      'failed',
    )
    const noAnswer = inlineRunner(() => ({ finalAnswer: null }))
    const run = await runTrial(baseOptions({ runner: noAnswer }))
    expect(run.result?.success).toBe(false)
    expect(run.record.outcome).toBe('failed')
    const claimsFailure = inlineRunner(() => ({ finalAnswer: 'x', success: false }))
    expect((await runTrial(baseOptions({ runner: claimsFailure }))).record.outcome).toBe('failed')
  })

  it('reports a policy violation when a checker says FAIL, even if the answer is right', async () => {
    const { record, events } = await runTrial(
      baseOptions({
        evaluators: [fixedEvaluator(true)],
        policy: [fixedChecker('WARN', 'w'), fixedChecker('FAIL', 'f')],
      }),
    )
    expect(record.outcome).toBe('policy_violation')
    expect(record.verdicts.map((v) => v.verdict)).toEqual(['WARN', 'FAIL'])
    expect(events.filter((e) => e.kind === 'policy.verdict').map((e) => e.payload.checkerId)).toEqual([
      'w',
      'f',
    ])
  })

  it('classifies a runner that throws as agent_error, keeps the message, and still evaluates and checks', async () => {
    const runner = inlineRunner((ctx) => {
      ctx.emit('agent.plan', { text: 'try' })
      throw new Error('tool crashed')
    })
    const { record, result, events } = await runTrial(
      baseOptions({ runner, evaluators: [fixedEvaluator(false)], policy: [fixedChecker('PASS')] }),
    )
    expect(record.outcome).toBe('agent_error')
    expect(result).toMatchObject({ terminatedBy: 'agent_error', success: false, error: 'tool crashed' })
    expect(record.scores).toHaveLength(1)
    expect(record.verdicts).toHaveLength(1)
    expect(kinds(events)).toEqual(['agent.plan', 'agent.terminal', 'evaluator.score', 'policy.verdict'])
  })

  it('classifies an agent that returns an error as agent_error', async () => {
    const runner = inlineRunner(() => ({ finalAnswer: null, error: 'gave up' }))
    const { record, result } = await runTrial(baseOptions({ runner }))
    expect(record.outcome).toBe('agent_error')
    expect(result?.error).toBe('gave up')
  })

  it('classifies an INFRA_FAILURE thrown by the runner as infra_failure', async () => {
    const runner = inlineRunner(() => {
      throw new AgentEvalOpsError('INFRA_FAILURE', 'sandbox did not start')
    })
    const { record, result } = await runTrial(baseOptions({ runner, evaluators: [fixedEvaluator(true)] }))
    expect(record.outcome).toBe('infra_failure')
    expect(result).toMatchObject({
      terminatedBy: 'infra_failure',
      success: false,
      error: 'sandbox did not start',
    })
  })

  it('never counts a trial whose evaluator threw as a pass', async () => {
    const throwing: Evaluator = {
      id: 'judge',
      kind: 'llm_judge',
      evaluate: () => {
        throw new Error('rate limited')
      },
    }
    const warnings: string[] = []
    const { record, events } = await runTrial(
      baseOptions({ evaluators: [fixedEvaluator(true), throwing], onWarning: (w) => warnings.push(w) }),
    )
    expect(record.outcome).toBe('infra_failure')
    expect(record.scores[1]).toMatchObject({
      evaluatorId: 'judge',
      kind: 'llm_judge',
      score: 0,
      passed: false,
      explanation: 'evaluator threw: rate limited',
    })
    expect(record.warnings.some((w) => w.includes('rate limited'))).toBe(true)
    expect(warnings).toEqual(record.warnings)
    expect(events.filter((e) => e.kind === 'evaluator.score')).toHaveLength(2)
  })

  it('treats an evaluator that returns an out-of-range score like one that threw', async () => {
    const broken: Evaluator = {
      id: 'broken',
      kind: 'deterministic',
      evaluate: () => ({ score: 1.5, passed: true, explanation: '', costUsd: 0, citations: [] }),
    }
    const { record } = await runTrial(baseOptions({ evaluators: [broken] }))
    expect(record.outcome).toBe('infra_failure')
    expect(record.scores[0]).toMatchObject({ passed: false, score: 0 })
    expect(record.scores[0]?.explanation).toMatch(/^evaluator threw: it returned an invalid score/)
  })

  it('makes a policy checker that throws a WARN verdict and an infra failure', async () => {
    const checker = {
      id: 'secrets',
      check: () => Promise.reject(new Error('scanner offline')),
    }
    const { record } = await runTrial(baseOptions({ policy: [checker] }))
    expect(record.outcome).toBe('infra_failure')
    expect(record.verdicts[0]).toMatchObject({ checkerId: 'secrets', verdict: 'WARN' })
  })

  it('ends as interrupted when the external signal aborts mid-run, skips judging, and still tears down', async () => {
    const controller = new AbortController()
    const teardown = vi.fn()
    const evaluate = vi.fn(() => ({ score: 1, passed: true, explanation: '', costUsd: 0, citations: [] }))
    const runner = inlineRunner(async (ctx) => {
      ctx.emit('agent.plan', { text: 'wait' })
      setTimeout(() => controller.abort(new Error('user pressed ctrl-c')), 10)
      await new Promise((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
      )
      return { finalAnswer: 'never' }
    })
    const { record, result, events } = await runTrial(
      baseOptions({
        runner,
        signal: controller.signal,
        teardown,
        evaluators: [{ id: 'e', kind: 'deterministic', evaluate }],
      }),
    )
    expect(record.outcome).toBe('interrupted')
    expect(result?.terminatedBy).toBe('interrupted')
    expect(result?.error).toContain('user pressed ctrl-c')
    expect(evaluate).not.toHaveBeenCalled()
    expect(teardown).toHaveBeenCalledTimes(1)
    expect(kinds(events)).toEqual(['agent.plan', 'agent.terminal'])
  })

  it('does not start the agent when the signal is already aborted', async () => {
    const run = vi.fn()
    const runner = { runnerInfo: () => ({ name: 'r', kind: 'test', config: {} }), run }
    const { record } = await runTrial(baseOptions({ runner, signal: AbortSignal.abort() }))
    expect(run).not.toHaveBeenCalled()
    expect(record.outcome).toBe('interrupted')
  })

  it('is not_evaluated when prepare throws: no result, no scores, no teardown, one terminal event', async () => {
    const teardown = vi.fn()
    const runner = {
      runnerInfo: () => answeringRunner.runnerInfo(),
      run: vi.fn<AgentRunner['run']>((t, e, c) => answeringRunner.run(t, e, c)),
    }
    const { record, result, events } = await runTrial(
      baseOptions({
        runner,
        prepare: () => {
          throw new Error('docker is down')
        },
        teardown,
        evaluators: [fixedEvaluator(true)],
      }),
    )
    expect(record.outcome).toBe('not_evaluated')
    expect(record.passed).toBe(false)
    expect(result).toBeNull()
    expect(record.result).toBeNull()
    expect(record.scores).toEqual([])
    expect(runner.run).not.toHaveBeenCalled()
    expect(teardown).not.toHaveBeenCalled()
    expect(record.warnings).toEqual(['prepare failed: docker is down'])
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      kind: 'agent.terminal',
      step: 0,
      payload: { terminatedBy: 'infra_failure', success: false, error: 'prepare failed: docker is down' },
    })
  })

  it('calls prepare, run, evaluators, policy and teardown once each, in that order, with the prepared env', async () => {
    const log: string[] = []
    const env = { workdir: '/tmp/x' }
    const { record } = await runTrial(
      baseOptions({
        prepare: async () => {
          log.push('prepare')
          return env
        },
        runner: inlineRunner((ctx, _task, got) => {
          log.push(`run ${got.workdir}`)
          ctx.emit('agent.final_answer', { answer: '2' })
          return { finalAnswer: '2' }
        }),
        evaluators: [
          {
            id: 'e',
            kind: 'deterministic',
            evaluate: () => (
              log.push('evaluate'),
              { score: 1, passed: true, explanation: '', costUsd: 0, citations: [] }
            ),
          },
        ],
        policy: [{ id: 'p', check: () => (log.push('policy'), { verdict: 'PASS', findings: [] }) }],
        teardown: (_task, got) => {
          log.push(`teardown ${got === env}`)
        },
      }),
    )
    expect(log).toEqual(['prepare', 'run /tmp/x', 'evaluate', 'policy', 'teardown true'])
    expect(record.outcome).toBe('passed')
  })

  it('tears down after a runner error too, and turns a failing teardown into a warning only', async () => {
    const teardown = vi.fn(() => {
      throw new Error('rm -rf failed')
    })
    const { record } = await runTrial(baseOptions({ teardown, evaluators: [fixedEvaluator(true)] }))
    expect(teardown).toHaveBeenCalledTimes(1)
    expect(record.outcome).toBe('passed')
    expect(record.warnings).toEqual(['teardown failed: rm -rf failed'])

    const failingRun = vi.fn()
    await runTrial(
      baseOptions({
        runner: inlineRunner(() => {
          throw new Error('x')
        }),
        teardown: failingRun,
      }),
    )
    expect(failingRun).toHaveBeenCalledTimes(1)
  })

  it('runs evaluators in parallel', async () => {
    const spans: Record<string, { start: number; end: number }> = {}
    const slow = (id: string): Evaluator => ({
      id,
      kind: 'deterministic',
      evaluate: async () => {
        const start = performance.now()
        await sleep(100)
        spans[id] = { start, end: performance.now() }
        return { score: 1, passed: true, explanation: '', costUsd: 0, citations: [] }
      },
    })
    const { record } = await runTrial(baseOptions({ evaluators: [slow('a'), slow('b')] }))
    expect(record.scores.map((s) => s.evaluatorId)).toEqual(['a', 'b'])
    // Each started before the other finished.
    expect(spans.b!.start).toBeLessThan(spans.a!.end)
    expect(spans.a!.start).toBeLessThan(spans.b!.end)
    expect(record.scores[0]!.latencyMs).toBeGreaterThanOrEqual(90)
  })

  it('keeps a runner with broken runnerInfo from costing the trial its record', async () => {
    const runner = { ...answeringRunner, runnerInfo: () => ({ name: '', kind: 'x', config: {} }) }
    const { record } = await runTrial(baseOptions({ runner }))
    expect(record.runner.name).toBe('unknown')
    expect(record.warnings[0]).toMatch(/runnerInfo\(\) is invalid/)
  })

  it('rejects invalid limits with CONFIG_INVALID', async () => {
    await expect(runTrial(baseOptions({ limits: { maxTurns: -1 } }))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    })
  })

  it('marks the trial infra_failure when its trace cannot be saved', async () => {
    const traceStore = {
      open: () => ({
        path: 'x.jsonl',
        append: () => Promise.reject(new Error('disk full')),
        finalize: () => Promise.resolve(),
      }),
      read: () => Promise.resolve([]),
    }
    const { record } = await runTrial(baseOptions({ traceStore, evaluators: [fixedEvaluator(true)] }))
    expect(record.outcome).toBe('infra_failure')
    expect(record.warnings).toEqual(['the trace could not be saved: disk full'])
  })

  it('has exactly one terminal event in every outcome', async () => {
    const runs = await Promise.all([
      runTrial(baseOptions()),
      runTrial(baseOptions({ runner: inlineRunner(() => Promise.reject(new Error('x'))) })),
      runTrial(baseOptions({ prepare: () => Promise.reject(new Error('x')) })),
      runTrial(baseOptions({ signal: AbortSignal.abort() })),
      runTrial(baseOptions({ limits: { maxTokens: 1 } })),
    ])
    for (const { events } of runs) expect(terminals(events)).toHaveLength(1)
  })
})
