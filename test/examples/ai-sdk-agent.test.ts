// examples/ai-sdk-agent: a generateText agent whose only harness line is traced(model), driven through the engine
// with the real AI SDK and @ai-sdk/openai against a fake Chat Completions server on 127.0.0.1. Recorded with
// AGENTEVALOPS_RECORD=record, then replayed with the server stopped and no key: the same trace. Its committed
// recordings are the ones recording it makes today, and a max-turns limit stops it as it stops any runner.
import { cp, readdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ResourceLimits, TraceEvent } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { costOf } from '../../src/models/index.ts'
import { RecordingSession, type RecordMode } from '../../src/recording/index.ts'
import { landmarkAgent } from '../../examples/ai-sdk-agent/agent.ts'
import { landmarkFeet, tasks } from '../../examples/ai-sdk-agent/benchmark.ts'
import { baseOptions } from '../engine/helpers.ts'
import { tempDir, type TempDir } from '../e2e/helpers.ts'
import { FakeOpenAIServer, type ChatReply } from '../support/fake-openai-server.ts'

const task = tasks[0]!
const COMMITTED = 'examples/ai-sdk-agent/__recordings__/agent.eval.ts'

/** The model's side of the conversation: look the height up, convert it, answer. */
const REPLIES: ChatReply[] = [
  {
    toolCalls: [{ id: 'call_height', name: 'lookupHeight', arguments: { landmark: 'Eiffel Tower' } }],
    usage: { prompt_tokens: 120, completion_tokens: 18, cached_tokens: 20 },
  },
  {
    toolCalls: [{ id: 'call_feet', name: 'metresToFeet', arguments: { metres: 330 } }],
    usage: { prompt_tokens: 160, completion_tokens: 16 },
  },
  { text: '1083', usage: { prompt_tokens: 190, completion_tokens: 3 } },
]

let dir: TempDir
let server: FakeOpenAIServer
beforeEach(async () => {
  dir = await tempDir('aeo-ai-sdk-agent-')
  server = await FakeOpenAIServer.start()
  vi.stubEnv('OPENAI_BASE_URL', server.url)
  vi.stubEnv('OPENAI_API_KEY', 'sk-test-ai-sdk-agent')
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await server.close()
  await dir.remove()
})

const run = async (mode: RecordMode, options: { dir?: string; limits?: ResourceLimits } = {}) =>
  runTrial(
    baseOptions({
      benchmark: await landmarkFeet.info(),
      task,
      runner: landmarkAgent(),
      ...(options.limits ? { limits: options.limits } : {}),
      modelCalls: new RecordingSession({ dir: options.dir ?? dir.path, mode, ci: false }).gateFor({
        benchmark: landmarkFeet.id,
        taskId: task.id,
        trial: 0,
      }),
    }),
  )

/** What the agent did, without the timings that differ on every run. */
const behaviour = (events: readonly TraceEvent[]) =>
  events
    .filter((e) => e.kind.startsWith('agent.'))
    .map((e) => {
      const { latencyMs: _latency, wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
      return [e.kind, payload, e.tokensDelta, e.costDeltaUsd]
    })

const cassetteLines = async (folder: string) => {
  const files = await readdir(folder)
  expect(files).toHaveLength(1)
  return (await readFile(join(folder, files[0]!), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

describe('the AI SDK example agent (traced model)', () => {
  it('is traced call by call, tool by tool, with usage from the replies', async () => {
    server.enqueue(...REPLIES)
    const { result, events, record } = await run('record')
    expect(server.problems).toEqual([])
    expect(server.pending).toBe(0)
    expect(server.requests).toHaveLength(3)
    // The tools really ran between the calls: their results went back to the model over HTTP.
    expect(JSON.stringify(server.requests[2]?.body)).toContain('"feet\\":1083')
    expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: '1083', turns: 3 })
    expect(behaviour(events).map(([kind]) => kind)).toEqual([
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
    ])
    const calls = events.filter((e) => e.kind === 'agent.model_call')
    expect(calls.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        model: 'gpt-4.1-mini',
        inputTokens: 100,
        cacheReadInputTokens: 20,
        outputTokens: 18,
        stopReason: 'tool_calls',
        status: 'ok',
      }),
      expect.objectContaining({ inputTokens: 160, outputTokens: 16, stopReason: 'tool_calls' }),
      expect.objectContaining({ inputTokens: 190, outputTokens: 3, text: '1083', stopReason: 'stop' }),
    ])
    expect(calls.map((e) => e.tokensDelta)).toEqual([138, 176, 193])
    // Cost from the price table, on the tokens as the trace counts them.
    const listPrice = (e: TraceEvent) => {
      const p = e.payload as { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number }
      return costOf('gpt-4.1-mini', {
        input_tokens: p.inputTokens,
        output_tokens: p.outputTokens,
        cache_read_input_tokens: p.cacheReadInputTokens ?? 0,
      })
    }
    expect(calls.map((e) => e.costDeltaUsd)).toEqual(calls.map(listPrice))
    expect(calls[0]!.costDeltaUsd).toBeGreaterThan(0)
    const tools = events.filter((e) => e.kind === 'agent.tool_call' || e.kind === 'agent.tool_result')
    expect(tools.map((e) => e.payload)).toEqual([
      { tool: 'lookupHeight', args: { landmark: 'Eiffel Tower' }, callId: 'call_height' },
      { tool: 'lookupHeight', result: { landmark: 'Eiffel Tower', metres: 330 }, callId: 'call_height' },
      { tool: 'metresToFeet', args: { metres: 330 }, callId: 'call_feet' },
      { tool: 'metresToFeet', result: { feet: 1083 }, callId: 'call_feet' },
    ])
    expect(record.runner).toEqual({
      name: 'ai-sdk-landmarks',
      kind: 'callable',
      config: { model: 'gpt-4.1-mini' },
    })
    // The key never reaches the recording.
    expect(JSON.stringify(await cassetteLines(dir.path))).not.toContain('sk-test-ai-sdk-agent')
  })

  it('replays with the server stopped and no key, leaving the same trace', async () => {
    server.enqueue(...REPLIES)
    const recorded = await run('record')
    expect(recorded.result?.terminatedBy).toBe('completed')
    expect(await cassetteLines(dir.path)).toHaveLength(3)

    await server.close()
    vi.stubEnv('OPENAI_API_KEY', undefined)
    const replayed = await run('replay')
    expect(replayed.result?.error ?? null).toBeNull()
    expect(replayed.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: '1083' })
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
    expect(server.requests).toHaveLength(3)
  })

  it('replays from the committed recordings, which are what recording it makes today', async () => {
    server.enqueue(...REPLIES)
    await run('record')
    // How the committed recordings are made: the same recording, kept.
    if (process.env.AGENTEVALOPS_UPDATE_EXAMPLE_RECORDINGS === '1') {
      await rm(COMMITTED, { recursive: true, force: true })
      await cp(dir.path, COMMITTED, { recursive: true })
    }
    const strip = (lines: Record<string, unknown>[]) => lines.map(({ recordedAt: _at, ...rest }) => rest)
    expect(
      strip(await cassetteLines(COMMITTED)),
      're-record them: AGENTEVALOPS_UPDATE_EXAMPLE_RECORDINGS=1 npx vitest run --project unit test/examples/ai-sdk-agent.test.ts',
    ).toEqual(strip(await cassetteLines(dir.path)))

    await server.close()
    vi.stubEnv('OPENAI_API_KEY', undefined)
    const { result } = await run('replay', { dir: COMMITTED })
    expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: '1083' })
  })

  it('stops at the max-turns limit as any runner does: limit_turns, nothing more asked of the model', async () => {
    server.enqueue(...REPLIES, ...REPLIES)
    const { result, events } = await run('off', { limits: { maxTurns: 1 } })
    expect(result?.terminatedBy).toBe('limit_turns')
    expect(result?.error).toContain('turn limit reached: 2 turns taken, maxTurns is 1')
    // The second call crossed the limit: its tool was never run, and nothing more was asked.
    expect(events.filter((e) => e.kind === 'agent.model_call')).toHaveLength(2)
    expect(server.requests).toHaveLength(2)
    expect(events.filter((e) => e.kind === 'agent.tool_call')).toHaveLength(1)
    expect(events.some((e) => e.kind === 'agent.final_answer')).toBe(false)
  })

  it('stops at the token limit on the call that crosses it: limit_tokens', async () => {
    server.enqueue(...REPLIES)
    const { result, events } = await run('off', { limits: { maxTokens: 200 } })
    expect(result?.terminatedBy).toBe('limit_tokens')
    // 138 tokens, then 176 more: the second call crosses 200, and its tool is never run.
    expect(events.filter((e) => e.kind === 'agent.model_call').map((e) => e.tokensDelta)).toEqual([138, 176])
    expect(events.filter((e) => e.kind === 'agent.tool_call')).toHaveLength(1)
    expect(server.requests).toHaveLength(2)
  })

  it('a replay with no recording ends the trial as infra_failure, without reaching the server', async () => {
    const { result } = await run('replay')
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain(
      'task "eiffel-feet" trial 0 (benchmark "landmark-feet"): no recorded model call',
    )
    expect(server.requests).toEqual([])
  })
})
