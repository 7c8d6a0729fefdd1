// traced(model) with the real AI SDK and @ai-sdk/openai against a fake Chat Completions server on 127.0.0.1:
// streamed calls are recorded and replayed like generated ones, a tool that throws is an error result, one model
// made at module level serves concurrent trials each into its own trace, and outside a trial the model is untouched.
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { callableRunner, traced } from '../../../src/agents/index.ts'
import { defineTask, isAgentEvalOpsError, type TraceEvent } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { RecordingSession, type RecordMode } from '../../../src/recording/index.ts'
import { baseOptions } from '../../engine/helpers.ts'
import { tempDir, type TempDir } from '../../e2e/helpers.ts'
import { FakeOpenAIServer } from '../../support/fake-openai-server.ts'

let dir: TempDir
let server: FakeOpenAIServer
let url: string
beforeEach(async () => {
  dir = await tempDir('aeo-traced-')
  server = await FakeOpenAIServer.start()
  // Kept: a replay runs with the server closed, and its address gone.
  url = server.url
})
afterEach(async () => {
  await server.close()
  await dir.remove()
})

const openai = () => createOpenAI({ baseURL: url, apiKey: 'sk-test-traced' })
const task = (id: string) => defineTask({ id, benchmark: 'toy', prompt: `Echo ${id}` })

const runIn = (runner: ReturnType<typeof callableRunner>, mode: RecordMode, taskId = 'echo') =>
  runTrial(
    baseOptions({
      task: task(taskId),
      runner,
      modelCalls: new RecordingSession({ dir: dir.path, mode, ci: false }).gateFor({
        benchmark: 'toy',
        taskId,
        trial: 0,
      }),
    }),
  )

const behaviour = (events: readonly TraceEvent[]) =>
  events
    .filter((e) => e.kind.startsWith('agent.'))
    .map((e) => {
      const { latencyMs: _latency, wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
      return [e.kind, payload, e.tokensDelta]
    })

describe('traced(model)', () => {
  it('records a streamed call (streamText) and replays it with the server stopped, the same trace and text', async () => {
    const runner = callableRunner(async ({ prompt }) => {
      const result = streamText({ model: traced(openai().chat('gpt-4.1-mini')), prompt })
      let streamed = ''
      for await (const delta of result.textStream) streamed += delta
      return streamed
    })
    server.enqueue({ text: 'streamed answer', usage: { prompt_tokens: 30, completion_tokens: 4 } })
    const recorded = await runIn(runner, 'record')
    expect(server.requests).toHaveLength(1)
    expect((server.requests[0]?.body as { stream?: boolean }).stream).toBe(true)
    expect(recorded.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'streamed answer' })
    expect(recorded.events.find((e) => e.kind === 'agent.model_call')?.payload).toMatchObject({
      model: 'gpt-4.1-mini',
      inputTokens: 30,
      outputTokens: 4,
      text: 'streamed answer',
      stopReason: 'stop',
    })

    await server.close()
    const replayed = await runIn(runner, 'replay')
    expect(replayed.result?.error ?? null).toBeNull()
    expect(replayed.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'streamed answer' })
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
  })

  it('records a tool that throws as an error result, and the model sees the error', async () => {
    const runner = callableRunner(async ({ prompt }) => {
      const { text } = await generateText({
        model: traced(openai().chat('gpt-4.1-mini')),
        prompt,
        tools: {
          lookup: tool({
            description: 'Looks it up',
            inputSchema: z.object({ q: z.string() }),
            execute: ({ q }): { hits: string[] } => {
              throw new Error(`index offline (asked ${q})`)
            },
          }),
        },
        stopWhen: stepCountIs(3),
      })
      return text
    })
    server.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'x' } }] },
      { text: 'gave up' },
    )
    const { result, events } = await runIn(runner, 'off')
    expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'gave up' })
    expect(events.find((e) => e.kind === 'agent.tool_result')?.payload).toEqual({
      tool: 'lookup',
      result: { error: 'index offline (asked x)' },
      isError: true,
      callId: 'call_1',
    })
    expect(JSON.stringify(server.requests[1]?.body)).toContain('index offline (asked x)')
  })

  it('records a refused call, so a replay retries where the recorded run did and fails the same way', async () => {
    const runner = callableRunner(async ({ prompt }) => {
      // One retry: the SDK makes the same request twice, both refused (the server has no reply scripted).
      const { text } = await generateText({
        model: traced(openai().chat('gpt-4.1-mini')),
        prompt,
        maxRetries: 1,
      })
      return text
    })
    const recorded = await runIn(runner, 'record')
    expect(server.requests).toHaveLength(2)
    expect(recorded.result?.terminatedBy).toBe('agent_error')
    const calls = recorded.events.filter((e) => e.kind === 'agent.model_call')
    expect(calls.map((e) => (e.payload as { status: string }).status)).toEqual(['error', 'error'])
    expect((calls[0]?.payload as { error: string }).error).toContain(
      'HTTP 500: fake-openai-server: unexpected request',
    )

    await server.close()
    const replayed = await runIn(runner, 'replay')
    expect(replayed.result?.terminatedBy).toBe('agent_error')
    expect(replayed.result?.error).toBe(recorded.result?.error)
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
  })

  it('one model made once serves concurrent trials, each call and tool in its own trial', async () => {
    const model = traced(openai().chat('gpt-4.1-mini'))
    const runner = callableRunner(async ({ prompt }) => {
      const { text } = await generateText({
        model,
        prompt,
        tools: {
          echo: tool({
            description: 'Echoes',
            inputSchema: z.object({ word: z.string() }),
            execute: ({ word }) => ({ word }),
          }),
        },
        stopWhen: stepCountIs(3),
      })
      return text
    })
    // Each trial asks once for the tool, then answers: whichever trial asks first gets the first reply.
    server.enqueue(
      { toolCalls: [{ id: 'call_a', name: 'echo', arguments: { word: 'one' } }] },
      { toolCalls: [{ id: 'call_b', name: 'echo', arguments: { word: 'two' } }] },
      { text: 'done' },
      { text: 'done' },
    )
    const [a, b] = await Promise.all([runIn(runner, 'off', 'a'), runIn(runner, 'off', 'b')])
    for (const trial of [a, b]) {
      expect(trial.result?.terminatedBy).toBe('completed')
      expect(trial.events.map((e) => e.kind)).toEqual([
        'agent.model_call',
        'agent.tool_call',
        'agent.tool_result',
        'agent.model_call',
        'agent.final_answer',
        'agent.terminal',
      ])
    }
    const callIds = [a, b].map((t) =>
      t.events.filter((e) => e.kind === 'agent.tool_call').map((e) => e.payload),
    )
    expect(
      callIds
        .flat()
        .map((p) => (p as { callId: string }).callId)
        .sort(),
    ).toEqual(['call_a', 'call_b'])
  })

  it('outside a trial, leaves the model as it is: the call reaches the provider, nothing is recorded', async () => {
    server.enqueue({ text: 'plain' })
    const { text } = await generateText({ model: traced(openai().chat('gpt-4.1-mini')), prompt: 'hi' })
    expect(text).toBe('plain')
    expect(server.requests).toHaveLength(1)
  })

  it('refuses what is not an AI SDK model, saying what to pass', () => {
    let thrown: unknown
    try {
      traced('gpt-4.1-mini' as never)
    } catch (e) {
      thrown = e
    }
    expect(isAgentEvalOpsError(thrown, 'CONFIG_INVALID')).toBe(true)
    expect((thrown as Error).message).toContain(
      'expected an AI SDK language model (specification v3), got the string "gpt-4.1-mini"',
    )
  })
})
