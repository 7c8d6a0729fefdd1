import Anthropic from '@anthropic-ai/sdk'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  anthropicRunner,
  DEFAULT_AGENT_SYSTEM_PROMPT,
  type AnthropicRunnerOptions,
  type ToolEnv,
} from '../../../src/agents/anthropic/index.ts'
import { defineTask, isAgentEvalOpsError, sha256 } from '../../../src/core/index.ts'
import { messageReply, textReply, toolUseBlock } from '../../support/fake-messages-server.ts'
import { bodyOf, fakeApi, kinds, modelCalls, plainTask, trial, weatherTask, weatherTools } from './helpers.ts'

const KEY = 'sk-ant-test-runner-0123456789abcdef'
const anyNumber = expect.any(Number) as number

const api = fakeApi(KEY, { tools: weatherTools })
const runner = api.runner

afterEach(() => {
  vi.unstubAllEnvs()
})

/** The weather conversation: get_weather, then convert, then the answer. */
function enqueueWeather(): void {
  api.server().enqueue(
    messageReply({
      content: [
        { type: 'text', text: 'Let me check.' },
        toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_01'),
      ],
      usage: { input_tokens: 100, output_tokens: 20 },
    }),
    messageReply({
      content: [toolUseBlock('convert', { celsius: 18 }, 'toolu_02')],
      usage: { input_tokens: 150, output_tokens: 15 },
    }),
    textReply('It is 64.4°F in Paris.', {
      input_tokens: 200,
      output_tokens: 12,
      cache_read_input_tokens: 50,
    }),
  )
}

describe('anthropicRunner: the tool loop against the fake Messages API', () => {
  it('runs a multi-turn tool conversation into the expected trace, usage and cost', async () => {
    enqueueWeather()
    const { record, events, result, warnings } = await trial(runner(), weatherTask)

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
    const ok = (turn: number, extra: Record<string, unknown>) => ({
      model: 'claude-haiku-4-5',
      status: 'ok',
      attempt: 1,
      turn,
      latencyMs: anyNumber,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
      ...extra,
    })
    expect(events.slice(0, 8).map((e) => e.payload)).toEqual([
      ok(1, { inputTokens: 100, outputTokens: 20, stopReason: 'tool_use', text: 'Let me check.' }),
      { tool: 'get_weather', args: { city: 'Paris' }, callId: 'toolu_01' },
      { tool: 'get_weather', result: { city: 'Paris', celsius: 18 }, isError: false, callId: 'toolu_01' },
      ok(2, { inputTokens: 150, outputTokens: 15, stopReason: 'tool_use', text: '' }),
      { tool: 'convert', args: { celsius: 18 }, callId: 'toolu_02' },
      { tool: 'convert', result: { fahrenheit: 64.4 }, isError: false, callId: 'toolu_02' },
      ok(3, {
        inputTokens: 200,
        outputTokens: 12,
        cacheReadInputTokens: 50,
        stopReason: 'end_turn',
        text: 'It is 64.4°F in Paris.',
      }),
      { answer: 'It is 64.4°F in Paris.' },
    ])

    // Haiku 4.5: $1 input, $5 output, $0.10 cache read per million tokens.
    const calls = modelCalls(events)
    expect(calls.map((e) => e.tokensDelta)).toEqual([120, 165, 262])
    expect(calls[0]?.costDeltaUsd).toBeCloseTo((100 * 1 + 20 * 5) / 1e6, 12)
    expect(calls[1]?.costDeltaUsd).toBeCloseTo((150 * 1 + 15 * 5) / 1e6, 12)
    expect(calls[2]?.costDeltaUsd).toBeCloseTo((200 * 1 + 12 * 5 + 50 * 0.1) / 1e6, 12)
    for (const e of events.filter((e) => e.kind !== 'agent.model_call')) {
      expect([e.tokensDelta, e.costDeltaUsd]).toEqual([0, 0])
    }

    expect(result).toMatchObject({
      terminatedBy: 'completed',
      success: true,
      finalAnswer: 'It is 64.4°F in Paris.',
      error: null,
      turns: 3,
      totalTokens: 547,
    })
    expect(record.usage.costUsd).toBeCloseTo(0.00069, 12)
    expect(record.outcome).toBe('passed')
    expect(warnings).toEqual([])
    expect(api.server().problems).toEqual([])
  })

  it('sends the model, temperature 0, the system prompt, the tools and the tool results back', async () => {
    enqueueWeather()
    await trial(runner(), weatherTask)
    expect(api.server().requests).toHaveLength(3)
    const [first, second, third] = api.server().requests.map(bodyOf)
    expect(first).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 4096,
      temperature: 0,
      system: DEFAULT_AGENT_SYSTEM_PROMPT,
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather of a city, in Celsius.',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        {
          name: 'convert',
          description: 'Celsius to Fahrenheit.',
          input_schema: { type: 'object', properties: { celsius: { type: 'number' } } },
        },
      ],
      messages: [{ role: 'user', content: 'How warm is it in Paris, in Fahrenheit?' }],
    })
    expect(second?.tools).toEqual(first?.tools)
    expect(second?.messages).toEqual([
      { role: 'user', content: 'How warm is it in Paris, in Fahrenheit?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '{"city":"Paris","celsius":18}' }],
      },
    ])
    expect(third?.messages.slice(3)).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_02', name: 'convert', input: { celsius: 18 } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_02', content: '{"fahrenheit":64.4}' }],
      },
    ])
    expect(third).toMatchObject({ model: 'claude-haiku-4-5', temperature: 0 })
    // SDK 1.x sends an API key as a bearer token.
    expect(api.server().requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it('answers several tool calls of one turn in order, all in one user message', async () => {
    api.server().enqueue(
      messageReply({
        content: [
          toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_a'),
          toolUseBlock('get_weather', { city: 'Oslo' }, 'toolu_b'),
        ],
      }),
      textReply('Both 18°C.'),
    )
    const { events } = await trial(runner(), weatherTask)
    expect(events.filter((e) => e.kind === 'agent.tool_result').map((e) => e.payload.callId)).toEqual([
      'toolu_a',
      'toolu_b',
    ])
    const last = bodyOf(api.server().requests[1]).messages.at(-1)
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"city":"Paris","celsius":18}' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"city":"Oslo","celsius":18}' },
      ],
    })
  })

  it('sends no tools for a task without tools, and a string tool result as is', async () => {
    api.server().enqueue(textReply('hi'))
    const { result } = await trial(runner(), plainTask)
    expect(result?.finalAnswer).toBe('hi')
    expect(bodyOf(api.server().requests[0])).not.toHaveProperty('tools')

    api
      .server()
      .enqueue(messageReply({ content: [toolUseBlock('echo', { s: 'x' }, 'toolu_e')] }), textReply('done'))
    const echoTask = defineTask({
      id: 'echo',
      benchmark: 'anthropic-demo',
      prompt: 'Echo.',
      tools: [{ name: 'echo', description: '', inputSchema: {} }],
    })
    await trial(runner({ tools: { echo: () => 'plain text' } }), echoTask)
    // A tool without a schema gets the object schema the API insists on, and no empty description.
    expect(bodyOf(api.server().requests[1]).tools).toEqual([
      { name: 'echo', input_schema: { type: 'object' } },
    ])
    expect(bodyOf(api.server().requests[2]).messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_e', content: 'plain text' },
    ])
  })

  it('takes a stop at max_tokens without a tool call as the answer, as far as it got', async () => {
    api.server().enqueue(messageReply({ text: 'It is 64', stopReason: 'max_tokens' }))
    const { events, result } = await trial(runner({ maxTokens: 5 }), plainTask)
    expect(bodyOf(api.server().requests[0]).max_tokens).toBe(5)
    expect(modelCalls(events)[0]?.payload.stopReason).toBe('max_tokens')
    expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'It is 64' })
  })

  it('sends a paused turn back for the model to go on', async () => {
    api
      .server()
      .enqueue(messageReply({ text: 'Searching', stopReason: 'pause_turn' }), textReply(' and found it.'))
    const { result } = await trial(runner(), plainTask)
    expect(result?.finalAnswer).toBe(' and found it.')
    expect(bodyOf(api.server().requests[1]).messages).toEqual([
      { role: 'user', content: 'Say hi.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Searching' }] },
    ])
  })

  it("uses a task's metadata.system over the runner's, and leaves temperature out when it is null", async () => {
    const task = defineTask({
      id: 'sys',
      benchmark: 'anthropic-demo',
      prompt: 'Hi',
      metadata: { system: 'You are terse.' },
    })
    api.server().enqueue(textReply('ok'), textReply('ok'))
    await trial(runner({ temperature: null, system: 'Runner prompt.' }), task)
    await trial(runner({ system: 'Runner prompt.' }), plainTask)
    expect(bodyOf(api.server().requests[0]).system).toBe('You are terse.')
    expect(bodyOf(api.server().requests[0])).not.toHaveProperty('temperature')
    expect(bodyOf(api.server().requests[1]).system).toBe('Runner prompt.')
  })

  it('uses a client it is given', async () => {
    const client = new Anthropic({ apiKey: KEY, baseURL: api.server().url, maxRetries: 2 })
    api.server().enqueue(textReply('hi'))
    const { result } = await trial(anthropicRunner({ model: 'claude-haiku-4-5', client }), plainTask)
    expect(result?.finalAnswer).toBe('hi')
    // Its own retries are off per request: only ours, each of them traced.
    expect(api.server().requests[0]?.headers['x-stainless-retry-count']).toBe('0')
  })

  it('reads the key and the endpoint from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', KEY)
    vi.stubEnv('ANTHROPIC_BASE_URL', api.server().url)
    api.server().enqueue(textReply('from env'))
    const { result } = await trial(anthropicRunner({ model: 'claude-haiku-4-5' }), plainTask)
    expect(result?.finalAnswer).toBe('from env')
  })
})

describe('anthropicRunner: tools that fail', () => {
  it('reports a handler that throws as an error result to the model, and goes on', async () => {
    api
      .server()
      .enqueue(
        messageReply({ content: [toolUseBlock('get_weather', { city: 'Atlantis' }, 'toolu_x')] }),
        textReply('I could not find Atlantis.'),
      )
    const tools = {
      ...weatherTools,
      get_weather: () => {
        throw new Error('no such city')
      },
    }
    const { events, result } = await trial(runner({ tools }), weatherTask)
    const toolResult = events.find((e) => e.kind === 'agent.tool_result')
    expect(toolResult?.payload).toEqual({
      tool: 'get_weather',
      result: 'tool "get_weather" failed: no such city',
      isError: true,
      callId: 'toolu_x',
    })
    expect(bodyOf(api.server().requests[1]).messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_x',
        content: 'tool "get_weather" failed: no such city',
        is_error: true,
      },
    ])
    expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'I could not find Atlantis.' })
  })

  it('reports an async rejection and a result that is not JSON the same way', async () => {
    api.server().enqueue(
      messageReply({
        content: [
          toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_1'),
          toolUseBlock('convert', { celsius: 1 }, 'toolu_2'),
        ],
      }),
      textReply('hmm'),
    )
    const tools = {
      get_weather: async () => Promise.reject(new Error('timeout upstream')),
      convert: () => BigInt(1) as unknown as number,
    }
    const { events } = await trial(runner({ tools }), weatherTask)
    expect(events.filter((e) => e.kind === 'agent.tool_result').map((e) => e.payload)).toEqual([
      expect.objectContaining({ result: 'tool "get_weather" failed: timeout upstream', isError: true }),
      expect.objectContaining({
        result: expect.stringMatching(/^tool "convert" returned a value that is not JSON/) as string,
        isError: true,
      }),
    ])
  })

  it('reports an unknown tool, even one some handler could run, as an error result', async () => {
    api.server().enqueue(
      messageReply({
        content: [
          toolUseBlock('teleport', { to: 'Mars' }, 'toolu_t'),
          toolUseBlock('secret_admin', {}, 'toolu_s'),
        ],
      }),
      textReply('Teleport is not available.'),
    )
    // secret_admin has a handler but the task never offered it to the model.
    const tools = { ...weatherTools, secret_admin: () => 'should not run' }
    const { events, result } = await trial(runner({ tools }), weatherTask)
    expect(events.filter((e) => e.kind === 'agent.tool_result').map((e) => e.payload)).toEqual([
      { tool: 'teleport', result: 'unknown tool "teleport"', isError: true, callId: 'toolu_t' },
      { tool: 'secret_admin', result: 'unknown tool "secret_admin"', isError: true, callId: 'toolu_s' },
    ])
    expect(result?.terminatedBy).toBe('completed')
  })

  it('uses the handlers the benchmark put in the env, after its own, and warns of an offered tool with none', async () => {
    api.server().enqueue(
      messageReply({
        content: [
          toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_1'),
          toolUseBlock('convert', { celsius: 18 }, 'toolu_2'),
        ],
      }),
      textReply('done'),
    )
    const seen: unknown[] = []
    const env: ToolEnv = {
      workdir: '/tmp/ws',
      toolHandlers: {
        get_weather: (input, ctx) => {
          seen.push([input, ctx.env.workdir, ctx.task.id, ctx.signal instanceof AbortSignal])
          return { from: 'env' }
        },
        convert: () => 'env convert must not win over the runner’s own',
      },
    }
    const { events, warnings } = await trial(
      runner({ tools: { convert: () => 'own convert' } }),
      weatherTask,
      {
        prepare: () => env,
      },
    )
    expect(seen).toEqual([[{ city: 'Paris' }, '/tmp/ws', 'weather-paris', true]])
    expect(events.filter((e) => e.kind === 'agent.tool_result').map((e) => e.payload.result)).toEqual([
      { from: 'env' },
      'own convert',
    ])
    expect(warnings).toEqual([])

    api
      .server()
      .enqueue(
        messageReply({ content: [toolUseBlock('convert', { celsius: 1 }, 'toolu_3')] }),
        textReply('no tool'),
      )
    const bare = await trial(runner({ tools: { get_weather: () => 1 } }), weatherTask)
    expect(bare.warnings).toEqual([
      'tool "convert" is offered to the model but has no handler: its calls fail',
    ])
    expect(bare.events.find((e) => e.kind === 'agent.tool_result')?.payload).toMatchObject({
      result: 'unknown tool "convert"',
      isError: true,
    })
  })
})

describe('anthropicRunner: configuration', () => {
  it('describes itself without credentials', () => {
    const info = runner({ requestsPerMinute: 50, system: 'Be brief.' }).runnerInfo()
    expect(info).toEqual({
      name: 'anthropic:claude-haiku-4-5',
      kind: 'anthropic',
      config: {
        model: 'claude-haiku-4-5',
        maxTokens: 4096,
        temperature: 0,
        tools: ['convert', 'get_weather'],
        systemPromptSha256: sha256('Be brief.'),
        requestsPerMinute: 50,
        maxTurns: 100,
      },
    })
    const text = JSON.stringify(info)
    expect(text).not.toContain(KEY)
    expect(text).not.toContain(api.server().url)
    expect(anthropicRunner({ model: 'claude-opus-4-6', name: 'my-agent' }).runnerInfo()).toMatchObject({
      name: 'my-agent',
      config: {
        tools: [],
        requestsPerMinute: null,
        systemPromptSha256: sha256(DEFAULT_AGENT_SYSTEM_PROMPT),
      },
    })
  })

  it('refuses invalid options when it is made', () => {
    const bad: Partial<AnthropicRunnerOptions>[] = [
      { model: '' },
      { maxTokens: 0 },
      { maxTokens: 1.5 },
      { temperature: 2 },
      { maxAttempts: 0 },
      { maxTurns: 0 },
      { requestsPerMinute: 0 },
      { timeoutMs: 0 },
      { tools: { x: 'not a function' as unknown as () => null } },
    ]
    for (const overrides of bad) {
      let caught: unknown
      try {
        anthropicRunner({ model: 'claude-haiku-4-5', ...overrides })
      } catch (e) {
        caught = e
      }
      expect(isAgentEvalOpsError(caught, 'CONFIG_INVALID'), JSON.stringify(overrides)).toBe(true)
    }
  })

  it('needs no key to be made; without one a trial is an infra failure with a hint, and no request is sent', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '')
    const r = anthropicRunner({ model: 'claude-haiku-4-5', baseURL: api.server().url })
    const { record, events } = await trial(r, plainTask)
    expect(record.outcome).toBe('infra_failure')
    expect(record.result?.terminatedBy).toBe('infra_failure')
    expect(record.result?.error).toContain('has no Anthropic API key')
    expect(record.result?.error).toContain('ANTHROPIC_API_KEY')
    expect(kinds(events)).toEqual(['agent.terminal'])
    expect(api.server().requests).toHaveLength(0)
  })

  it('warns once per trial of a model with no price, records cost 0 and marks it unknown', async () => {
    api
      .server()
      .enqueue(messageReply({ content: [toolUseBlock('get_weather', { city: 'Paris' })] }), textReply('18°C'))
    const { events, warnings, record } = await trial(runner({ model: 'claude-unreleased-9' }), weatherTask)
    expect(warnings).toEqual([
      expect.stringMatching(
        /^no price for model claude-unreleased-9: cost recorded as 0 \(unknown/,
      ) as string,
    ])
    expect(modelCalls(events).map((e) => [e.payload.costUnknown, e.costDeltaUsd, e.tokensDelta])).toEqual([
      [true, 0, 20],
      [true, 0, 20],
    ])
    expect(record.usage.costUsd).toBe(0)
    expect(record.outcome).toBe('passed')
  })

  it('gives up after its own maxTurns backstop with an agent error', async () => {
    api
      .server()
      .enqueue(
        messageReply({ content: [toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_1')] }),
        messageReply({ content: [toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_2')] }),
      )
    const { record } = await trial(runner({ maxTurns: 2 }), weatherTask)
    expect(record.result).toMatchObject({
      terminatedBy: 'agent_error',
      finalAnswer: null,
      error: "no final answer after 2 model turns (the runner's maxTurns)",
    })
    expect(api.server().requests).toHaveLength(2)
  })
})
