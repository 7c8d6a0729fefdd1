// The SDK recipes of examples/callable-agent/README.md, as the files under recipes/ hold them, driven through the
// engine with the real SDKs against a fake Chat Completions server on 127.0.0.1: recorded with
// AGENTEVALOPS_RECORD=record, then replayed with the server gone and no API key, leaving the same trace.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AgentRunner, TraceEvent } from '../../src/core/index.ts'
import { defineTask } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { RecordingSession, type RecordMode } from '../../src/recording/index.ts'
import { aiSdkRunner } from '../../examples/callable-agent/recipes/ai-sdk.ts'
import { openAiRunner } from '../../examples/callable-agent/recipes/openai.ts'
import { baseOptions } from '../engine/helpers.ts'
import { tempDir, type TempDir } from '../e2e/helpers.ts'
import { FakeOpenAIServer } from '../support/fake-openai-server.ts'

const task = defineTask({
  id: 'eiffel',
  benchmark: 'toy',
  prompt: 'How tall is the Eiffel Tower, in metres?',
  expected: '330',
})

let dir: TempDir
let server: FakeOpenAIServer
beforeEach(async () => {
  dir = await tempDir('aeo-recipes-')
  server = await FakeOpenAIServer.start()
  vi.stubEnv('OPENAI_BASE_URL', server.url)
  vi.stubEnv('OPENAI_API_KEY', 'sk-test-recipes')
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await server.close()
  await dir.remove()
})

const run = (runner: AgentRunner, mode: RecordMode) =>
  runTrial(
    baseOptions({
      task,
      runner,
      modelCalls: new RecordingSession({ dir: dir.path, mode, ci: false }).gateFor({
        benchmark: 'toy',
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
      return [e.kind, payload, e.tokensDelta]
    })

const recipes: [string, AgentRunner][] = [
  ['AI SDK (generateText)', aiSdkRunner],
  ['OpenAI SDK (a streamed tool loop)', openAiRunner],
]

describe.each(recipes)('the %s recipe', (_name, runner) => {
  it('records its model calls, then replays them with no server and no key, leaving the same trace', async () => {
    server.enqueue(
      {
        toolCalls: [{ id: 'call_abc', name: 'search', arguments: { query: 'height of the eiffel tower' } }],
        usage: { prompt_tokens: 40, completion_tokens: 12, cached_tokens: 8 },
      },
      { text: 'The Eiffel Tower is 330 m tall.', usage: { prompt_tokens: 90, completion_tokens: 9 } },
    )
    const recorded = await run(runner, 'record')
    expect(server.problems).toEqual([])
    expect(server.pending).toBe(0)
    expect(server.requests).toHaveLength(2)
    // The second request carries the tool's result back to the model: the loop really ran over HTTP.
    expect(JSON.stringify(server.requests[1]?.body)).toContain('The Eiffel Tower is 330 m tall.')
    expect(recorded.result).toMatchObject({
      terminatedBy: 'completed',
      finalAnswer: 'The Eiffel Tower is 330 m tall.',
    })

    const trace = behaviour(recorded.events)
    expect(trace.map(([kind]) => kind)).toEqual([
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
    ])
    const calls = recorded.events.filter((e) => e.kind === 'agent.model_call')
    // Usage comes from the replies; OpenAI's cached prompt tokens are counted apart, not twice.
    expect(calls.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        model: 'gpt-4.1-mini',
        inputTokens: 32,
        cacheReadInputTokens: 8,
        outputTokens: 12,
        stopReason: 'tool_calls',
        status: 'ok',
      }),
      expect.objectContaining({
        model: 'gpt-4.1-mini',
        inputTokens: 90,
        outputTokens: 9,
        text: 'The Eiffel Tower is 330 m tall.',
        stopReason: 'stop',
        status: 'ok',
      }),
    ])
    expect(calls.map((e) => e.tokensDelta)).toEqual([52, 99])
    expect(recorded.events.find((e) => e.kind === 'agent.tool_call')?.payload).toMatchObject({
      tool: 'search',
      args: { query: 'height of the eiffel tower' },
      callId: 'call_abc',
    })

    // The recording is on disk, one line per model call.
    const files = await readdir(dir.path)
    expect(files).toHaveLength(1)
    const lines = (await readFile(join(dir.path, files[0]!), 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines.join('\n')).not.toContain('sk-test-recipes')

    // Replay: the server is gone, the base URL points nowhere, and there is no key.
    const url = server.url
    await server.close()
    vi.stubEnv('OPENAI_BASE_URL', url)
    vi.stubEnv('OPENAI_API_KEY', undefined)
    const replayed = await run(runner, 'replay')
    expect(replayed.result?.error ?? null).toBeNull()
    expect(replayed.result).toMatchObject({
      terminatedBy: 'completed',
      finalAnswer: 'The Eiffel Tower is 330 m tall.',
    })
    expect(behaviour(replayed.events)).toEqual(trace)
    expect(server.requests).toHaveLength(2)
  })

  it('a replay with no recording ends the trial as infra_failure naming the task, without reaching the server', async () => {
    const { result, record } = await run(runner, 'replay')
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain('task "eiffel" trial 0 (benchmark "toy"): no recorded model call')
    expect(record.outcome).toBe('infra_failure')
    expect(server.requests).toEqual([])
  })
})

describe('examples/callable-agent/README.md', () => {
  const readme = () => readFile('examples/callable-agent/README.md', 'utf8')
  // The README shows each recipe file as a user writes it: the package by name, and their own tools.
  const asShown = (source: string) =>
    source
      .replace(`from '../../../src/index.ts'`, `from 'agentevalops'`)
      .replace(`from '../research-assistant.ts'`, `from './tools.ts'`)

  it.each(['ai-sdk.ts', 'openai.ts'])('shows recipes/%s exactly as the tested file is', async (file) => {
    const source = await readFile(join('examples/callable-agent/recipes', file), 'utf8')
    expect(await readme()).toContain(`\`\`\`ts\n${asShown(source)}\`\`\``)
  })

  it('has no recipe that reports model calls the harness cannot record', async () => {
    const text = await readme()
    // The after-the-fact form in an SDK callback: never recorded, so refused when recordings are required.
    expect(text).not.toMatch(/onStepFinish|handleLLMEnd|result\.rawResponses/)
  })
})
