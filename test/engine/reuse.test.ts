import { describe, expect, it } from 'vitest'
import { agentKeyChanges, runTrial, scoreKeyChanges, trialKeys, trialLimits } from '../../src/engine/index.ts'
import {
  answeringRunner,
  baseOptions,
  benchmark,
  fixedEvaluator,
  inlineRunner,
  kinds,
  task,
} from './helpers.ts'

const neverRuns = inlineRunner(() => {
  throw new Error('the agent must not run again')
})

describe('runTrial with reuse (resume)', () => {
  it('keys a trial by task, trial and runner (agent) and by the evaluators too (score)', () => {
    const runner = { name: 'inline', kind: 'test', config: {} }
    const base = { benchmark, task, trial: 0, runner, limits: {}, evaluators: [fixedEvaluator(true)] }
    const keys = trialKeys(base)
    expect(trialKeys({ ...base })).toEqual(keys)
    expect(trialKeys({ ...base, trial: 1 }).agent).not.toBe(keys.agent)
    expect(trialKeys({ ...base, runner: { ...runner, config: { model: 'x' } } }).agent).not.toBe(keys.agent)
    const rescored = trialKeys({
      ...base,
      evaluators: [{ ...fixedEvaluator(true), config: { threshold: 0.9 } }],
    })
    expect(rescored.agent).toBe(keys.agent)
    expect(rescored.score).not.toBe(keys.score)
  })

  it('keys the limits a trial runs under and the runner, and names the part that changed', () => {
    const runner = { name: 'mock-scripted', kind: 'mock', config: { defaultDelayMs: 0, scriptsSha256: 'a' } }
    const base = { benchmark, task, trial: 0, runner, limits: {}, evaluators: [fixedEvaluator(true)] }
    const keys = trialKeys(base)
    const capped = trialKeys({ ...base, limits: { maxTokens: 1 } })
    expect(capped.agent).not.toBe(keys.agent)
    expect(capped.score).not.toBe(keys.score)
    expect(agentKeyChanges(keys, capped)).toEqual(['limits changed'])
    // The limits as the engine applies them: a task's own tighter limit is the same trial as a run limit of it.
    expect(trialKeys({ ...base, limits: trialLimits({ maxTokens: 50 }, { maxTokens: 1 }) }).agent).toBe(
      capped.agent,
    )
    expect(trialKeys({ ...base, limits: trialLimits({ maxTokens: 1 }, { maxTokens: 50 }) }).agent).toBe(
      capped.agent,
    )
    const rescripted = trialKeys({
      ...base,
      runner: { ...runner, config: { ...runner.config, scriptsSha256: 'b' } },
    })
    expect(agentKeyChanges(keys, rescripted)).toEqual(['runner config changed'])
    expect(agentKeyChanges(keys, trialKeys({ ...base, task: { ...task, checksum: 'other' } }))).toEqual([
      'task changed',
    ])
    const both = trialKeys({ ...base, runner: { ...runner, name: 'x' }, limits: { maxTurns: 2 } })
    expect(agentKeyChanges(keys, both)).toEqual(['runner config changed', 'limits changed'])
    expect(agentKeyChanges(keys, trialKeys({ ...base }))).toEqual([])
    const rejudged = trialKeys({ ...base, policy: [{ id: 'p', config: { max: 1 } }] })
    expect(rejudged.agent).toBe(keys.agent)
    expect(scoreKeyChanges(keys, rejudged)).toEqual(['policy changed'])
    // Keys kept before they had parts never match: those runs did not key limits or scripts.
    expect(agentKeyChanges({}, keys)).toEqual([
      'its bundle predates limits and runner scripts in the reuse key',
    ])
  })

  it('takes a trial over whole: same trace and verdicts, this run id, and where it came from', async () => {
    const first = await runTrial(
      baseOptions({ runId: 'run-1', runner: answeringRunner, evaluators: [fixedEvaluator(true)] }),
    )
    const again = await runTrial(
      baseOptions({
        runId: 'run-2',
        runner: neverRuns,
        evaluators: [fixedEvaluator(true)],
        reuse: { mode: 'record', from: first.record, events: first.events },
      }),
    )
    expect(again.record.reusedFrom).toEqual({ runId: 'run-1', mode: 'record' })
    expect(again.record.scores).toEqual(first.record.scores)
    expect(again.record.outcome).toBe(first.record.outcome)
    expect(again.events.map((e) => [e.step, e.kind, e.ts, e.spanId])).toEqual(
      first.events.map((e) => [e.step, e.kind, e.ts, e.spanId]),
    )
    expect(new Set(again.events.map((e) => e.runId))).toEqual(new Set(['run-2']))
  })

  it('names the benchmark in events taken from a bundle from before events named it', async () => {
    const first = await runTrial(baseOptions({ runId: 'run-1', runner: answeringRunner }))
    const unnamed = first.events.map(({ benchmark: _benchmark, ...e }) => e)
    const again = await runTrial(
      baseOptions({
        runId: 'run-2',
        runner: neverRuns,
        reuse: { mode: 'record', from: first.record, events: unnamed },
      }),
    )
    expect(new Set(again.events.map((e) => e.benchmark))).toEqual(new Set([benchmark.id]))
  })

  it('re-scores the agent part with new evaluators, without running the agent', async () => {
    const first = await runTrial(
      baseOptions({ runId: 'run-1', runner: answeringRunner, evaluators: [fixedEvaluator(true)] }),
    )
    const again = await runTrial(
      baseOptions({
        runId: 'run-2',
        runner: neverRuns,
        evaluators: [fixedEvaluator(false, 'stricter')],
        reuse: { mode: 'rescored', from: first.record, events: first.events },
      }),
    )
    expect(again.record.reusedFrom).toEqual({ runId: 'run-1', mode: 'rescored' })
    expect(again.record.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([['stricter', false]])
    expect(again.record.outcome).toBe('failed')
    expect(again.record.result).toEqual(first.record.result)
    // The agent's events as they were, then the new evaluator's score; none of the old one's.
    expect(kinds(again.events)).toEqual([
      'agent.plan',
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
      'evaluator.score',
    ])
    expect(again.events.at(-1)!.payload).toMatchObject({ evaluatorId: 'stricter' })
  })
})
