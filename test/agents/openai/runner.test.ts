// openaiRunner with the real `openai` SDK against a fake Chat Completions server on 127.0.0.1: the tool loop over
// several turns, usage and cost, retries (429 with retry-after, 500), a body that is not a completion, the trial
// limits, and a recording replayed with the server stopped.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openaiRunner, type OpenAIRunnerOptions } from '../../../src/agents/openai/index.ts'
import type { TraceEvent } from '../../../src/core/index.ts'
import { priceOf } from '../../../src/models/index.ts'
import { RecordingSession, type RecordMode } from '../../../src/recording/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import { tempDir, type TempDir } from '../../e2e/helpers.ts'
import { chatErrors, completion, FakeOpenAIServer } from '../../support/fake-openai-server.ts'
import {
  benchmark,
  kinds,
  modelCalls,
  plainTask,
  trial,
  weatherTask,
  weatherTools,
} from '../anthropic/helpers.ts'

const KEY = 'sk-test-openai-runner-0123456789abcdef'
const GATEWAY_TOKEN = 'gw-token-5f1e9a7c3b2d4e6f'

let server: FakeOpenAIServer
let url: string
beforeEach(async () => {
  server = await FakeOpenAIServer.start()
  // Kept: a replay runs with the server closed, and its address gone.
  url = server.url
})
afterEach(async () => {
  await server.close()
})

const slept: number[] = []
const runner = (overrides: Partial<OpenAIRunnerOptions> = {}) =>
  openaiRunner({
    model: 'gpt-4.1-mini',
    apiKey: KEY,
    baseURL: url,
    tools: weatherTools,
    retry: {
      sleep: (ms) => {
        slept.push(ms)
        return Promise.resolve()
      },
    },
    ...overrides,
  })
beforeEach(() => {
  slept.length = 0
})

const weatherCall = (id: string, usage = { prompt_tokens: 100, completion_tokens: 20 }) => ({
  toolCalls: [{ id, name: 'get_weather', arguments: { city: 'Paris' } }],
  usage,
})

interface SentBody {
  model: string
  messages: { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown[] }[]
  tools?: { type: string; function: { name: string; parameters: unknown } }[]
}
const sent = (index: number): SentBody => server.requests[index]!.body as SentBody

describe('openaiRunner', () => {
  it('runs a tool loop with two tools over three turns, with usage and list-price cost', async () => {
    server.enqueue(
      weatherCall('call_1', { prompt_tokens: 1000, completion_tokens: 50 }),
      {
        toolCalls: [{ id: 'call_2', name: 'convert', arguments: { celsius: 18 } }],
        usage: { prompt_tokens: 1200, completion_tokens: 40, cached_tokens: 1000 },
      },
      { text: 'It is 64.4°F in Paris.', usage: { prompt_tokens: 1300, completion_tokens: 12 } },
    )
    const { record, events, warnings } = await trial(
      runner({ headers: { 'x-gateway-token': GATEWAY_TOKEN } }),
      weatherTask,
    )
    expect(record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'It is 64.4°F in Paris.' })
    expect(kinds(events)).toEqual([
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
    const results = events.filter((e) => e.kind === 'agent.tool_result').map((e) => e.payload)
    expect(results).toEqual([
      { tool: 'get_weather', result: { city: 'Paris', celsius: 18 }, isError: false, callId: 'call_1' },
      { tool: 'convert', result: { fahrenheit: 64.4 }, isError: false, callId: 'call_2' },
    ])
    // The second turn's cached prompt tokens are priced at the cached-input rate, apart from the rest.
    const calls = modelCalls(events)
    expect(
      calls.map((e) => [e.payload.inputTokens, e.payload.cacheReadInputTokens, e.payload.outputTokens]),
    ).toEqual([
      [1000, 0, 50],
      [200, 1000, 40],
      [1300, 0, 12],
    ])
    expect(calls.map((e) => e.payload.stopReason)).toEqual(['tool_calls', 'tool_calls', 'stop'])
    const price = priceOf('gpt-4.1-mini')!
    const expected =
      ((1000 + 200 + 1300) * price.input + 1000 * price.cacheRead + (50 + 40 + 12) * price.output) / 1e6
    expect(record.usage.costUsd).toBeCloseTo(expected, 12)
    expect(record.usage.tokens).toBe(1050 + 1240 + 1312)
    expect(warnings).toEqual([])

    // What went over the wire: the tools as functions, each result as a tool message answering its call.
    expect(server.requests).toHaveLength(3)
    expect(sent(0).tools?.map((t) => [t.type, t.function.name])).toEqual([
      ['function', 'get_weather'],
      ['function', 'convert'],
    ])
    expect(sent(2).messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ])
    expect(sent(2).messages[3]).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_1',
      content: JSON.stringify({ city: 'Paris', celsius: 18 }),
    })
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`)
    expect(server.requests[0]!.headers['x-gateway-token']).toBe(GATEWAY_TOKEN)
    expect(server.problems).toEqual([])
  })

  it('prices an unknown model at 0 with one warning, never a crash', async () => {
    server.enqueue(weatherCall('call_1'), { text: '18°C' })
    const { record, events, warnings } = await trial(runner({ model: 'llama3.1:8b' }), weatherTask)
    expect(record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: '18°C' })
    expect(record.usage.costUsd).toBe(0)
    expect(record.usage.tokens).toBe(120 + 15)
    expect(modelCalls(events).map((e) => e.payload.costUnknown)).toEqual([true, true])
    expect(warnings.filter((w) => w.includes('no price for model llama3.1:8b'))).toHaveLength(1)
  })

  it('retries a 429 after its retry-after and a 500 after a backoff, each attempt an event', async () => {
    server.enqueue(chatErrors.rateLimited('2'), chatErrors.serverError(), { text: 'hi' })
    const { record, events } = await trial(runner({ retry: { baseDelayMs: 7, sleep: sleeper() } }), plainTask)
    expect(record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'hi', turns: 1 })
    const calls = modelCalls(events).map((e) => e.payload)
    expect(calls.map((p) => [p.status, p.attempt, p.httpStatus])).toEqual([
      ['error', 1, 429],
      ['error', 2, 500],
      ['ok', 3, undefined],
    ])
    expect(calls[0]!.retryInMs).toBe(2000)
    // The server's retry-after, then our own backoff (base 7 ms doubled once, less up to 25 % jitter).
    expect(slept[0]).toBe(2000)
    expect(slept[1]).toBeGreaterThan(10)
    expect(slept[1]).toBeLessThanOrEqual(14)
    expect(server.requests).toHaveLength(3)
  })

  it('a body that is not a completion is retried, then the trial is an infra failure', async () => {
    const html = { status: 200, raw: '<html>gateway login</html>' }
    server.enqueue(html, html)
    const { record, events } = await trial(runner({ maxAttempts: 2 }), plainTask)
    expect(record.outcome).toBe('infra_failure')
    expect(record.result?.error ?? '').toMatch(/malformed response body/)
    expect(modelCalls(events).map((e) => e.payload.status)).toEqual(['error', 'error'])
    expect(server.requests).toHaveLength(2)
  })

  it('a 400 is not retried: infra failure after one attempt', async () => {
    server.enqueue(chatErrors.badRequest('unknown parameter'), { text: 'never sent' })
    const { record } = await trial(runner(), plainTask)
    expect(record.outcome).toBe('infra_failure')
    expect(server.requests).toHaveLength(1)
  })

  it('redacts the key and the gateway headers from every event and error', async () => {
    server.enqueue(
      chatErrors.serverError(`upstream refused key ${KEY} with token ${GATEWAY_TOKEN}`),
      weatherCall('call_1'),
      { text: `done, key was ${KEY}` },
    )
    const leaky = runner({
      headers: { 'x-gateway-token': GATEWAY_TOKEN },
      tools: { get_weather: () => `the token is ${GATEWAY_TOKEN}` },
    })
    const { record, events } = await trial(leaky, weatherTask)
    expect(record.result?.terminatedBy).toBe('completed')
    const everything = JSON.stringify({ record, events })
    expect(everything).not.toContain(KEY)
    expect(everything).not.toContain(GATEWAY_TOKEN)
    expect(everything).toContain('[redacted]')
  })

  it('a maxTurns limit hit mid-loop → limit_turns', async () => {
    server.enqueue(weatherCall('call_1'), weatherCall('call_2'), { text: '18°C' })
    const turns = await trial(runner(), weatherTask, { limits: { maxTurns: 1 } })
    expect(turns.record.result?.terminatedBy).toBe('limit_turns')
    expect(kinds(turns.events)).toEqual([
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.terminal',
    ])
    expect(server.pending).toBe(1)
  })

  it('a maxTokens limit crossed by the second call → limit_tokens, its tools never run', async () => {
    server.enqueue(weatherCall('call_1'), weatherCall('call_2'), { text: '18°C' })
    const { record, events } = await trial(runner(), weatherTask, { limits: { maxTokens: 200 } })
    expect(record.result?.terminatedBy).toBe('limit_tokens')
    expect(record.outcome).toBe('limit_exceeded')
    expect(record.usage.tokens).toBe(240)
    expect(kinds(events)).toEqual([
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.terminal',
    ])
    expect(server.pending).toBe(1)
  })

  it('a maxCostUsd limit crossed by the first call → limit_cost, its tool never runs', async () => {
    server.enqueue(weatherCall('call_1', { prompt_tokens: 100_000, completion_tokens: 1000 }), {
      text: '18°C',
    })
    const { record, events } = await trial(runner(), weatherTask, { limits: { maxCostUsd: 0.01 } })
    expect(record.result?.terminatedBy).toBe('limit_cost')
    const price = priceOf('gpt-4.1-mini')!
    expect(record.usage.costUsd).toBeCloseTo((100_000 * price.input + 1000 * price.output) / 1e6, 12)
    expect(kinds(events)).toEqual(['agent.model_call', 'agent.terminal'])
    expect(server.pending).toBe(1)
  })

  it("a task's metadata.system replaces the runner's system prompt for that task", async () => {
    server.enqueue({ text: 'hi' }, { text: 'hi' })
    const own = { ...plainTask, metadata: { ...plainTask.metadata, system: 'Answer in French.' } }
    await trial(runner({ system: 'Be brief.' }), plainTask)
    await trial(runner({ system: 'Be brief.' }), own)
    expect(sent(0).messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
    expect(sent(1).messages[0]).toEqual({ role: 'system', content: 'Answer in French.' })
  })

  it('arguments that are not JSON are an error result for the model, and the conversation goes on', async () => {
    // A completion as sent by a model that wrote broken arguments: served verbatim with a 200.
    const broken = completion('chatcmpl-broken', 'gpt-4.1-mini', {
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: {} }],
    }) as { choices: { message: { tool_calls: { function: { arguments: string } }[] } }[] }
    broken.choices[0]!.message.tool_calls[0]!.function.arguments = '{"city": Paris'
    server.enqueue({ status: 200, body: broken }, { text: 'sorry' })
    const { record, events } = await trial(runner(), weatherTask)
    expect(record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'sorry' })
    const [call, result] = events.filter(
      (e) => e.kind === 'agent.tool_call' || e.kind === 'agent.tool_result',
    )
    expect(call?.payload).toEqual({ tool: 'get_weather', args: '{"city": Paris', callId: 'call_1' })
    expect(result?.payload).toMatchObject({ isError: true, callId: 'call_1' })
    expect(String(result?.payload.result)).toMatch(/not JSON/)
    expect(sent(1).messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
  })

  it('makes no request and reports an infra failure without an API key', async () => {
    const saved = process.env.OPENAI_API_KEY
    delete process.env.OPENAI_API_KEY
    try {
      const { record } = await trial(runner({ apiKey: undefined }), plainTask)
      expect(record.outcome).toBe('infra_failure')
      expect(JSON.stringify(record)).toMatch(/no OpenAI API key/)
      expect(server.requests).toHaveLength(0)
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved
    }
  })
})

describe('openaiRunner recorded and replayed', () => {
  let dir: TempDir
  beforeEach(async () => {
    dir = await tempDir('aeo-openai-runner-')
  })
  afterEach(async () => {
    await dir.remove()
  })

  const runIn = (mode: RecordMode) =>
    runTrial({
      runId: 'run-openai',
      benchmark,
      task: weatherTask,
      trial: 0,
      runner: runner(),
      traceStore: new MemoryTraceStore(),
      modelCalls: new RecordingSession({ dir: dir.path, mode, ci: false }).gateFor({
        benchmark: benchmark.id,
        taskId: weatherTask.id,
        trial: 0,
      }),
    })

  const behaviour = (events: readonly TraceEvent[]) =>
    events
      .filter((e) => e.kind.startsWith('agent.'))
      .map((e) => {
        // The one thing a replay cannot repeat: how long the trial took.
        const { wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
        return [e.kind, payload, e.tokensDelta, e.costDeltaUsd]
      })

  it('replays the tool loop, a retry included, with the server stopped: the identical trace', async () => {
    server.enqueue(
      chatErrors.rateLimited('0'),
      weatherCall('call_1'),
      { toolCalls: [{ id: 'call_2', name: 'convert', arguments: { celsius: 18 } }] },
      { text: '64.4°F' },
    )
    const recorded = await runIn('record')
    expect(recorded.record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: '64.4°F' })
    expect(server.requests).toHaveLength(4)

    await server.close()
    const replayed = await runIn('replay')
    expect(replayed.record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: '64.4°F' })
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
    expect(replayed.record.usage.tokens).toBe(recorded.record.usage.tokens)
    expect(replayed.record.usage.costUsd).toBe(recorded.record.usage.costUsd)
    expect(modelCalls(replayed.events).map((e) => e.payload.status)).toEqual(['error', 'ok', 'ok', 'ok'])
  })
})

function sleeper() {
  return (ms: number): Promise<void> => {
    slept.push(ms)
    return Promise.resolve()
  }
}
