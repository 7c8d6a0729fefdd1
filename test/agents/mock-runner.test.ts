import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  AgentEvalOpsError,
  checksumOf,
  passThroughGate,
  defineTask,
  isAgentEvalOpsError,
  type AgentScript,
  type RunContext,
} from '../../src/core/index.ts'
import { mockRunner, type MockRunnerOptions } from '../../src/agents/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'

const task = defineTask({ id: 'HumanEval/0', benchmark: 'toy', prompt: 'What is 1+1?', expected: '2' })
const other = defineTask({ id: 'other', benchmark: 'toy', prompt: '?' })

const solves: AgentScript = {
  steps: [
    { kind: 'plan', text: 'add the numbers' },
    { kind: 'model_call', model: 'mock-1', tokens: 40, costUsd: 0.002 },
    { kind: 'tool_call', tool: 'calculator', args: { expr: '1+1' } },
    { kind: 'tool_result', tool: 'calculator', result: 2 },
    { kind: 'observation', text: 'the calculator says 2' },
    { kind: 'final_answer', answer: '2', tokens: 10, costUsd: 0.001 },
  ],
}

function trial(runner: ReturnType<typeof mockRunner>, limits = {}) {
  return runTrial({
    runId: 'r',
    benchmark: { id: 'toy', version: '1', datasetChecksum: 'c' },
    task,
    trial: 0,
    runner,
    limits,
    traceStore: new MemoryTraceStore(),
  })
}

/** A bare RunContext, for driving the runner without the engine. */
function bareContext(signal: AbortSignal): RunContext & { emitted: string[] } {
  const emitted: string[] = []
  const usage = () => ({ tokens: 0, costUsd: 0, turns: 0, wallSeconds: 0 })
  return {
    limits: {},
    usage,
    signal,
    emitted,
    emit: (kind) => emitted.push(kind) - 1,
    warn: () => {},
    modelCalls: passThroughGate,
    addArtifact: () => {},
  }
}

describe('mockRunner', () => {
  it('replays each step as its trace event, with its tokens and cost', async () => {
    const { record, result, events } = await trial(mockRunner({ scripts: { [task.id]: solves } }))
    expect(events.map((e) => e.kind)).toEqual([
      'agent.plan',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.observation',
      'agent.final_answer',
      'agent.terminal',
    ])
    expect(events[1]).toMatchObject({ payload: { model: 'mock-1' }, tokensDelta: 40, costDeltaUsd: 0.002 })
    expect(events[2]?.payload).toEqual({ tool: 'calculator', args: { expr: '1+1' } })
    expect(events[3]?.payload).toEqual({ tool: 'calculator', result: 2 })
    expect(result).toMatchObject({ finalAnswer: '2', success: true, totalTokens: 50, turns: 1 })
    expect(result?.totalCostUsd).toBeCloseTo(0.003)
    expect(record.outcome).toBe('passed')
  })

  it('reports success false when the script says so or gives no answer', async () => {
    const scripts = { [task.id]: { ...solves, success: false } }
    expect((await trial(mockRunner({ scripts }))).result?.success).toBe(false)
    const silent = { [task.id]: { steps: [{ kind: 'plan' as const, text: 'hmm' }] } }
    expect((await trial(mockRunner({ scripts: silent }))).result).toMatchObject({
      success: false,
      finalAnswer: null,
    })
  })

  it('throws the scripted error after counting what the step spent', async () => {
    const scripts = {
      [task.id]: {
        steps: [
          { kind: 'plan' as const, text: 'x' },
          { kind: 'throw' as const, message: 'segfault', tokens: 5 },
        ],
      },
    }
    const { record, result, events } = await trial(mockRunner({ scripts }))
    expect(record.outcome).toBe('agent_error')
    expect(result).toMatchObject({ error: 'segfault', totalTokens: 5 })
    expect(events.map((e) => e.kind)).toEqual(['agent.plan', 'cost.tick', 'agent.terminal'])
  })

  it('writes scripts per task with a function', async () => {
    const runner = mockRunner({
      scripts: (t) => ({ steps: [{ kind: 'final_answer', answer: `answer to ${t.id}` }] }),
    })
    expect((await trial(runner)).result?.finalAnswer).toBe('answer to HumanEval/0')
  })

  it('fails clearly, as an infra failure, for a task it has no script for', async () => {
    const runner = mockRunner({ scripts: { other: solves } })
    const { record, result } = await trial(runner)
    expect(record.outcome).toBe('infra_failure')
    expect(result?.error).toContain('no script for task "HumanEval/0"')
    expect(result?.error).toContain('"other"')
    await expect(runner.run(other, {}, bareContext(new AbortController().signal))).resolves.toMatchObject({
      finalAnswer: '2',
    })
  })

  it('does not take an inherited property for a script', async () => {
    const runner = mockRunner({ scripts: {} })
    const toString = defineTask({ id: 'toString', benchmark: 'toy', prompt: '?' })
    await expect(runner.run(toString, {}, bareContext(new AbortController().signal))).rejects.toMatchObject({
      code: 'INFRA_FAILURE',
    })
  })

  it('rejects an invalid script when it is defined', () => {
    const bad = { [task.id]: { steps: [{ kind: 'teleport' }] } } as unknown as Record<string, AgentScript>
    expect(() => mockRunner({ scripts: bad })).toThrow(AgentEvalOpsError)
    try {
      mockRunner({ scripts: bad })
    } catch (e) {
      expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
      expect((e as Error).message).toContain('HumanEval/0')
    }
  })

  it('waits each step delay, and stops promptly with the signal reason when aborted', async () => {
    const runner = mockRunner({ scripts: { [task.id]: solves }, defaultDelayMs: 10_000 })
    const controller = new AbortController()
    const ctx = bareContext(controller.signal)
    const running = runner.run(task, {}, ctx)
    const reason = new AgentEvalOpsError('RUN_ABORTED', 'stop')
    setTimeout(() => controller.abort(reason), 20)
    await expect(running).rejects.toBe(reason)
    expect(ctx.emitted).toEqual([])
  })

  it('honours per-step delays under the engine wall-time limit', async () => {
    const scripts = {
      [task.id]: {
        steps: [
          { kind: 'plan' as const, text: 'quick' },
          { kind: 'final_answer' as const, answer: '2', delayMs: 10_000 },
        ],
      },
    }
    const started = performance.now()
    const { result, events } = await trial(mockRunner({ scripts }), { maxWallSeconds: 0.1 })
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(result?.terminatedBy).toBe('limit_time')
    expect(events.map((e) => e.kind)).toEqual(['agent.plan', 'agent.terminal'])
  })

  it('stops at a token limit the script crosses', async () => {
    const { result, events } = await trial(mockRunner({ scripts: { [task.id]: solves } }), { maxTokens: 30 })
    expect(result?.terminatedBy).toBe('limit_tokens')
    expect(events.at(-2)?.kind).toBe('agent.model_call')
  })

  it('describes itself', () => {
    expect(mockRunner({ scripts: {} }).runnerInfo()).toEqual({
      name: 'mock-scripted',
      kind: 'mock',
      config: { defaultDelayMs: 0, scriptsSha256: checksumOf({}) },
    })
    expect(mockRunner({ scripts: {}, name: 'mock-slow', defaultDelayMs: 5 }).runnerInfo()).toEqual({
      name: 'mock-slow',
      kind: 'mock',
      config: { defaultDelayMs: 5, scriptsSha256: checksumOf({}) },
    })
  })

  it('tells runners with other scripts apart in its config: they play their trials differently', () => {
    const config = (scripts: MockRunnerOptions['scripts']) => mockRunner({ scripts }).runnerInfo().config
    const solving = config({ [task.id]: solves })
    expect(config({ [task.id]: solves })).toEqual(solving)
    expect(config({ [task.id]: { ...solves, success: false } })).not.toEqual(solving)
    expect(config({ [task.id]: solves, other: solves })).not.toEqual(solving)
    const fromFunction = config(() => solves)
    expect(fromFunction).not.toEqual(solving)
    expect(config(() => ({ steps: [] }))).not.toEqual(fromFunction)
  })
})

describe('mockRunner write_file steps', () => {
  const writes: AgentScript = {
    steps: [
      { kind: 'write_file', path: 'out/answer.txt', content: '42\n' },
      { kind: 'final_answer', answer: 'wrote out/answer.txt' },
    ],
  }

  function trialIn(workdir: string | undefined, script: AgentScript) {
    return runTrial({
      runId: 'r',
      benchmark: { id: 'toy', version: '1', datasetChecksum: 'c' },
      task,
      trial: 0,
      runner: mockRunner({ scripts: { [task.id]: script } }),
      prepare: () => (workdir === undefined ? {} : { workdir }),
      traceStore: new MemoryTraceStore(),
    })
  }

  it('writes the file in the workspace and records the call and its result', async () => {
    const workdir = await mkdtemp(join(tmpdir(), 'aeo-mock-'))
    try {
      const { result, events } = await trialIn(workdir, writes)
      expect(result?.terminatedBy).toBe('completed')
      expect(await readFile(join(workdir, 'out/answer.txt'), 'utf8')).toBe('42\n')
      expect(events.slice(0, 2).map((e) => [e.kind, e.payload])).toEqual([
        ['agent.tool_call', { tool: 'write_file', args: { path: 'out/answer.txt', content: '42\n' } }],
        ['agent.tool_result', { tool: 'write_file', result: { path: 'out/answer.txt', bytes: 3 } }],
      ])
    } finally {
      await rm(workdir, { recursive: true, force: true })
    }
  })

  it('fails the agent, writing nothing, outside the workspace or without one', async () => {
    const workdir = await mkdtemp(join(tmpdir(), 'aeo-mock-'))
    try {
      const escape: AgentScript = { steps: [{ kind: 'write_file', path: '../escaped.txt', content: 'x' }] }
      const outside = await trialIn(workdir, escape)
      expect(outside.result).toMatchObject({
        terminatedBy: 'agent_error',
        error: 'write_file "../escaped.txt": the path is outside the workspace',
      })
      expect(existsSync(join(workdir, '..', 'escaped.txt'))).toBe(false)
      expect(outside.events[1]).toMatchObject({ kind: 'agent.tool_result', payload: { isError: true } })
      const none = await trialIn(undefined, writes)
      expect(none.result?.error).toContain('the benchmark prepared no workspace')
    } finally {
      await rm(workdir, { recursive: true, force: true })
    }
  })
})
