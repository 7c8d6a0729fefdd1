// ctx.modelCall(info with a request, run) goes through the trial's recording gate: recorded once, then replayed
// without calling the wrapped function, with the same trace.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { callableRunner, type CallableAgent } from '../../../src/agents/callable/index.ts'
import type { TraceEvent } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { RecordingSession, type RecordMode } from '../../../src/recording/index.ts'
import { baseOptions, task } from '../../engine/helpers.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-callable-rec-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function agent(calls: string[]): CallableAgent {
  return async ({ prompt }, ctx) => {
    const request = { messages: [{ role: 'user', content: prompt }], max_tokens: 50 }
    const reply = await ctx.modelCall({ model: 'claude-haiku-4-5', request }, () => {
      calls.push(prompt)
      return { result: 'two', inputTokens: 10, outputTokens: 2, text: 'two' }
    })
    return reply === 'two' ? '2' : reply
  }
}

const run = (mode: RecordMode, calls: string[]) =>
  runTrial(
    baseOptions({
      runner: callableRunner(agent(calls)),
      modelCalls: new RecordingSession({ dir, mode, ci: false }).gateFor({ taskId: task.id, trial: 0 }),
    }),
  )

const behaviour = (events: readonly TraceEvent[]) =>
  events.map((e) => {
    // Timings differ on every run; what the agent did must not.
    const { latencyMs: _latency, wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
    return [e.kind, payload, e.tokensDelta, e.costDeltaUsd]
  })

describe('callableRunner modelCall with a request', () => {
  it('records the call, then replays it without calling the function, leaving the same trace', async () => {
    const calls: string[] = []
    const recorded = await run('auto', calls)
    expect(recorded.result?.finalAnswer).toBe('2')
    const replayed = await run('replay', calls)
    expect(calls).toHaveLength(1)
    expect(replayed.result?.finalAnswer).toBe('2')
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
  })

  it('a replay with no recording ends the trial as infra_failure, naming the task', async () => {
    const { result, record } = await run('replay', [])
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain(`task ${JSON.stringify(task.id)} trial 0: no recorded model call`)
    expect(record.outcome).toBe('infra_failure')
  })
})

describe('callableRunner modelCall without a request', () => {
  const unkeyed =
    (calls: string[]): CallableAgent =>
    async ({ prompt }, ctx) => {
      const reply = await ctx.modelCall({ model: 'claude-haiku-4-5' }, () => {
        calls.push(prompt)
        return { result: 'two', inputTokens: 10, outputTokens: 2 }
      })
      return reply === 'two' ? '2' : reply
    }
  const reported: CallableAgent = (_input, ctx) => {
    ctx.modelCall({ model: 'claude-haiku-4-5', inputTokens: 10, outputTokens: 2 })
    return '2'
  }
  const runWith = (agentFn: CallableAgent, mode: RecordMode, ci = false) =>
    runTrial(
      baseOptions({
        runner: callableRunner(agentFn),
        modelCalls: new RecordingSession({ dir, mode, ci }).gateFor({ taskId: task.id, trial: 0 }),
      }),
    )

  it.each([
    ['record', false, 'AGENTEVALOPS_RECORD=record records every model call'],
    ['replay', false, 'AGENTEVALOPS_RECORD=replay answers every model call from its recording'],
    ['auto', true, 'in CI (CI=true) AGENTEVALOPS_RECORD=auto only replays'],
  ] as const)(
    'in %s mode (CI %s) the wrapping form is refused before its call is made, saying how to pass request',
    async (mode, ci, because) => {
      const calls: string[] = []
      const { result, record } = await runWith(unkeyed(calls), mode, ci)
      expect(calls).toEqual([])
      expect(result?.terminatedBy).toBe('infra_failure')
      expect(record.outcome).toBe('infra_failure')
      expect(result?.error).toContain(
        'ctx.modelCall("claude-haiku-4-5", run) has no `request`, so its call cannot be recorded',
      )
      expect(result?.error).toContain(because)
      expect(result?.error).toContain(
        'ctx.modelCall({ model, request: { model, messages, tools, max_tokens } }, run)',
      )
      expect(result?.error).toContain('fetch: ctx.fetch')
    },
  )

  it('in record mode the after-the-fact form is refused too, even when the agent swallows the error', async () => {
    const swallowing: CallableAgent = (input, ctx) => {
      try {
        return reported(input, ctx)
      } catch {
        return 'carried on'
      }
    }
    const { result } = await runWith(swallowing, 'record')
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain(
      'ctx.modelCall("claude-haiku-4-5") reports a call made outside the harness',
    )
    expect(result?.error).toContain('AGENTEVALOPS_RECORD=record records every model call')
  })

  it('in auto mode outside CI the call is made, with one warning per trial that it is not recorded', async () => {
    const calls: string[] = []
    const twice: CallableAgent = async (input, ctx) => {
      await unkeyed(calls)(input, ctx)
      return unkeyed(calls)(input, ctx)
    }
    const { result, record } = await runWith(twice, 'auto')
    expect(calls).toHaveLength(2)
    expect(result?.finalAnswer).toBe('2')
    expect(record.warnings).toEqual([
      expect.stringContaining('has no `request`, so its call cannot be recorded: it is not recorded'),
    ])
  })

  it('with recording off the call is made silently', async () => {
    const calls: string[] = []
    const { result, record } = await runWith(unkeyed(calls), 'off')
    expect(calls).toHaveLength(1)
    expect(result?.finalAnswer).toBe('2')
    expect(record.warnings).toEqual([])
  })
})
