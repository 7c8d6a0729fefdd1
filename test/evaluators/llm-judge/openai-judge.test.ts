// llmJudge({ provider: 'openai' }): the real `openai` SDK against a fake OpenAI-compatible gateway on 127.0.0.1,
// the way monitor mode reaches its judge through LLM_API_BASE / LLM_API_KEY.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  isAgentEvalOpsError,
  type EmitUsage,
  type EvaluatorContext,
  type ModelCallGate,
  type TracePayload,
} from '../../../src/core/index.ts'
import {
  judgeGatewayFromEnv,
  llmJudge,
  type LlmJudgeOptions,
} from '../../../src/evaluators/llm-judge/index.ts'
import { RecordingSession } from '../../../src/recording/index.ts'
import { builtinRegistry } from '../../../plugin/builtin-adapters.ts'
import { chatErrors, FakeOpenAIServer, type ChatReply } from '../../support/fake-openai-server.ts'
import { ev, trace, viewOf } from '../trace-fixture.ts'

/** A key that must never show up in a score, an event or an error. */
const CANARY = 'sk-gateway-CANARY-41d9b7e2c0a85f36'

const events = trace(
  ev.plan('add the two numbers'),
  ev.call('calc', { expr: '1+1' }),
  ev.result('calc', 2),
  ev.answer('2'),
  ev.terminal('completed'),
)
const view = viewOf(events, { task: { prompt: 'What is 1+1?' } })

let server: FakeOpenAIServer

beforeEach(async () => {
  server = await FakeOpenAIServer.start()
})

afterEach(async () => {
  await server.close()
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

interface Emitted {
  payload: TracePayload<'evaluator.model_call'>
  usage: EmitUsage | undefined
}

function recorder(modelCalls?: ModelCallGate) {
  const emitted: Emitted[] = []
  const ctx: EvaluatorContext = {
    signal: new AbortController().signal,
    emit: (_kind, payload, usage) => {
      emitted.push({ payload, usage })
      return 100 + emitted.length - 1
    },
    ...(modelCalls ? { modelCalls } : {}),
  }
  return { ctx, emitted, statuses: () => emitted.map((e) => e.payload.status) }
}

/** Backoff waits are recorded, not slept: the retry-after a server asks for is asserted, not timed. */
function options(waits: number[] = [], overrides: Partial<LlmJudgeOptions> = {}): LlmJudgeOptions {
  return {
    provider: 'openai',
    rubric: 'The final answer must be 2, computed with the calculator.',
    model: 'gpt-4o-mini',
    apiKey: CANARY,
    baseURL: server.url,
    retry: { baseDelayMs: 1, sleep: async (ms) => void waits.push(ms) },
    ...overrides,
  }
}

function verdict(
  v: { score?: number; passed?: boolean; reasoning?: string; citations?: number[] } = {},
  usage?: ChatReply['usage'],
): ChatReply {
  const body = { score: 1, passed: true, reasoning: 'The answer 2 is correct.', citations: [3], ...v }
  return { text: JSON.stringify(body), ...(usage === undefined ? {} : { usage }) }
}

interface SentBody {
  model: string
  max_completion_tokens?: number
  max_tokens?: number
  temperature?: number
  response_format?: { type: string }
  messages: { role: string; content: string }[]
}

function sent(index: number): SentBody {
  return server.requests[index]?.body as SentBody
}

async function rejection(pending: unknown): Promise<Error> {
  return Promise.resolve(pending).then(
    () => expect.unreachable('expected the judge to fail'),
    (e: unknown) => e as Error,
  )
}

describe("llmJudge({ provider: 'openai' }) against a fake OpenAI-compatible gateway", () => {
  it('passes on a valid verdict: Chat Completions with a system prompt, JSON mode, temperature 0, bearer key', async () => {
    server.enqueue(verdict({ citations: [3, 1] }, { prompt_tokens: 900, completion_tokens: 60 }))
    const { ctx, emitted } = recorder()
    const judge = llmJudge(options())
    expect(judge.kind).toBe('llm_judge')
    const output = await judge.evaluate(view, ctx)
    expect(output).toMatchObject({ score: 1, passed: true, confidence: 1, citations: [1, 3] })
    expect(output.explanation).toContain('The answer 2 is correct.')

    const [request] = server.requests
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' })
    expect(request!.headers.authorization).toBe(`Bearer ${CANARY}`)
    const body = sent(0)
    expect(body).toMatchObject({
      model: 'gpt-4o-mini',
      max_completion_tokens: 1024,
      temperature: 0,
      response_format: { type: 'json_object' },
    })
    expect(body).not.toHaveProperty('max_tokens')
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user'])
    expect(body.messages[0]!.content).toContain('exactly one JSON object')
    expect(body.messages[1]!.content).toContain('[step 1] tool call calc {"expr":"1+1"}')

    expect(emitted).toHaveLength(1)
    expect(emitted[0]?.payload).toMatchObject({
      evaluatorId: 'llm_judge',
      model: 'gpt-4o-mini',
      attempt: 1,
      status: 'ok',
      inputTokens: 900,
      outputTokens: 60,
    })
    // gpt-4o-mini: $0.15 in, $0.60 out per million tokens.
    const cost = (900 * 0.15 + 60 * 0.6) / 1e6
    expect(emitted[0]?.usage).toEqual({ tokens: 960, costUsd: expect.closeTo(cost, 12) as number })
    expect(output.costUsd).toBeCloseTo(cost, 12)
    expect(server.problems).toEqual([])
  })

  it('fails on a failing verdict', async () => {
    server.enqueue(verdict({ score: 0.1, passed: false, reasoning: 'It guessed.' }))
    const output = await llmJudge(options()).evaluate(view)
    expect(output).toMatchObject({ score: 0.1, passed: false })
    expect(output.explanation).toContain('0 pass, 1 fail → failed')
  })

  it('asks again after a malformed reply, quoting it back, and uses the valid one', async () => {
    server.enqueue({ text: 'The agent did great!' }, verdict())
    const { ctx, emitted, statuses } = recorder()
    const output = await llmJudge(options()).evaluate(view, ctx)
    expect(output.passed).toBe(true)
    expect(statuses()).toEqual(['malformed', 'ok'])
    expect(emitted[0]?.payload.error).toContain('no JSON object found')
    const retry = sent(1).messages
    expect(retry.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(retry[2]?.content).toBe('The agent did great!')
    expect(retry[3]?.content).toContain('not a valid verdict')
  })

  it('says a malformed reply was cut off when the gateway stopped at the token limit', async () => {
    server.enqueue({ text: '{"score": 1, "passed": tr', finishReason: 'length' }, verdict())
    const { ctx, emitted } = recorder()
    await llmJudge(options()).evaluate(view, ctx)
    expect(emitted[0]?.payload.error).toContain('cut off at max_tokens')
  })

  it('gives up with INFRA_FAILURE when every reply is malformed', async () => {
    server.enqueue({ text: 'nope' }, { text: '' })
    const { ctx, statuses } = recorder()
    const error = await rejection(llmJudge(options([], { malformedRetries: 1 })).evaluate(view, ctx))
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect(error.message).toContain('gpt-4o-mini gave no valid verdict in 2 replies')
    expect(statuses()).toEqual(['malformed', 'malformed'])
  })

  it('counts the cost of every billed attempt, cached prompt tokens at the cached-input price', async () => {
    // gpt-4.1: $2 in, $0.50 cached in, $8 out per million. 1000 prompt tokens of which 400 cached, 200 out.
    const usage = { prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 400 }
    const each = (600 * 2 + 400 * 0.5 + 200 * 8) / 1e6
    server.enqueue({ text: 'not json', usage }, chatErrors.serverError(), verdict({}, usage))
    const { ctx, emitted } = recorder()
    const output = await llmJudge(options([], { model: 'gpt-4.1' })).evaluate(view, ctx)
    expect(output.costUsd).toBeCloseTo(2 * each, 12)
    expect(emitted.map((e) => e.usage?.costUsd)).toEqual([
      expect.closeTo(each, 12),
      0,
      expect.closeTo(each, 12),
    ])
    expect(emitted.map((e) => e.usage?.tokens)).toEqual([1200, 0, 1200])
    expect(emitted[2]?.payload).toMatchObject({ inputTokens: 600, cacheReadInputTokens: 400 })
    expect(output.explanation).not.toContain('cost unknown')
  })

  it('waits what a 429 retry-after asks, then judges; both attempts are events', async () => {
    server.enqueue(chatErrors.rateLimited('2'), verdict())
    const waits: number[] = []
    const { ctx, emitted, statuses } = recorder()
    const output = await llmJudge(options(waits)).evaluate(view, ctx)
    expect(output.passed).toBe(true)
    expect(waits).toEqual([2000])
    expect(statuses()).toEqual(['error', 'ok'])
    expect(emitted[0]?.payload).toMatchObject({ attempt: 1, httpStatus: 429, retryInMs: 2000 })
    expect(emitted[0]?.usage).toEqual({ tokens: 0, costUsd: 0 })
    // The SDK's own retries are off: one request per attempt.
    expect(server.requests).toHaveLength(2)
  })

  it('retries a 500 and judges on the next attempt', async () => {
    server.enqueue(chatErrors.serverError(), verdict())
    const { ctx, emitted } = recorder()
    expect((await llmJudge(options()).evaluate(view, ctx)).passed).toBe(true)
    expect(emitted.map((e) => [e.payload.status, e.payload.httpStatus])).toEqual([
      ['error', 500],
      ['ok', undefined],
    ])
  })

  it('rejects with INFRA_FAILURE after three 500s, never a verdict', async () => {
    server.enqueue(chatErrors.serverError(), chatErrors.serverError(), chatErrors.serverError())
    const { ctx, statuses } = recorder()
    const error = await rejection(llmJudge(options()).evaluate(view, ctx))
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect(error.message).toContain('model call to gpt-4o-mini failed after 3 attempt(s): HTTP 500')
    expect(statuses()).toEqual(['error', 'error', 'error'])
    expect(server.requests).toHaveLength(3)
  })

  it('does not retry a 400, and says what to check', async () => {
    server.enqueue(chatErrors.badRequest("Unsupported value: 'temperature'"))
    const error = await rejection(llmJudge(options()).evaluate(view))
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect(error.message).toContain('failed (not retryable): HTTP 400')
    expect((error as Error & { hint?: string }).hint).toContain('LLM_API_BASE')
    expect(server.requests).toHaveLength(1)
  })

  it('retries a 200 whose body is not a completion (a proxy page)', async () => {
    server.enqueue({ status: 200, raw: '<html>gateway warming up</html>' }, verdict())
    const { ctx, emitted } = recorder()
    expect((await llmJudge(options()).evaluate(view, ctx)).passed).toBe(true)
    expect(emitted[0]?.payload.error).toContain('malformed response body')
  })

  it('an unknown model costs 0 with a warning and the explanation says so, never a crash', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    server.enqueue(verdict({}, { prompt_tokens: 5000, completion_tokens: 500 }))
    const { ctx, emitted } = recorder()
    const output = await llmJudge(options([], { model: 'acme/house-model-7b' })).evaluate(view, ctx)
    expect(output.passed).toBe(true)
    expect(output.costUsd).toBe(0)
    expect(output.explanation).toContain('cost unknown for model acme/house-model-7b')
    expect(emitted[0]?.usage).toEqual({ tokens: 5500, costUsd: 0 })
    expect(emitted[0]?.payload.costUnknown).toBe(true)
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringContaining('no price for model acme/house-model-7b'),
    ])
  })

  it('a gateway that reports no usage: the cost is unknown, not a silent 0', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    server.enqueue(verdict({}, null))
    const { ctx, emitted } = recorder()
    const output = await llmJudge(options([], { model: 'gpt-4.1-mini' })).evaluate(view, ctx)
    expect(output.explanation).toContain('cost unknown')
    expect(emitted[0]?.payload.costUnknown).toBe(true)
    expect(emitted[0]?.usage).toEqual({ tokens: 0, costUsd: 0 })
  })

  it('never lets the key into the score, the events or the error, even when the gateway echoes it', async () => {
    server.enqueue(
      chatErrors.serverError(`invalid key ${CANARY}`),
      { text: `malformed, and the key is ${CANARY}` },
      verdict({ reasoning: `echoing ${CANARY}` }),
    )
    const { ctx, emitted } = recorder()
    const output = await llmJudge(options()).evaluate(view, ctx)
    expect(emitted).toHaveLength(3)
    expect(JSON.stringify({ output, emitted })).not.toContain(CANARY)
    expect(JSON.stringify(emitted)).toContain('[redacted]')

    server.enqueue(chatErrors.serverError(`still ${CANARY}`))
    const error = await rejection(llmJudge(options([], { maxAttempts: 1 })).evaluate(view))
    expect(error.message).not.toContain(CANARY)
    expect(String(error.stack)).not.toContain(CANARY)
  })

  it('makes one request per attempt even with a caller’s client that would retry on its own', async () => {
    const client = new OpenAI({ apiKey: CANARY, baseURL: server.url }) // SDK default: 2 retries
    server.enqueue(chatErrors.serverError(), chatErrors.serverError())
    const { ctx, statuses } = recorder()
    await rejection(llmJudge(options([], { client, maxAttempts: 2 })).evaluate(view, ctx))
    expect(server.requests).toHaveLength(2)
    expect(statuses()).toEqual(['error', 'error'])
  })

  it('leaves JSON mode and temperature out when asked to, for gateways and models that refuse them', async () => {
    server.enqueue(verdict())
    await llmJudge(options([], { jsonResponseFormat: false, temperature: null })).evaluate(view)
    expect(sent(0)).not.toHaveProperty('response_format')
    expect(sent(0)).not.toHaveProperty('temperature')
  })

  it('records its calls through the model-call gate and replays them with the gateway gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aeo-openai-judge-'))
    try {
      server.enqueue(chatErrors.rateLimited('0'), verdict({}, { prompt_tokens: 300, completion_tokens: 40 }))
      const live = recorder(
        new RecordingSession({ dir, mode: 'auto', ci: false }).gateFor({ taskId: 't', trial: 0 }),
      )
      const recorded = await llmJudge(options()).evaluate(view, live.ctx)
      expect(live.statuses()).toEqual(['error', 'ok'])
      const offline = options([], { baseURL: 'http://127.0.0.1:9' })
      await server.close()

      const replay = recorder(
        new RecordingSession({ dir, mode: 'replay', ci: false }).gateFor({ taskId: 't', trial: 0 }),
      )
      const replayed = await llmJudge(offline).evaluate(view, replay.ctx)
      expect(replayed).toEqual(recorded)
      // The same attempts reach the trace: a replayed judgement shows its retry and its cost.
      expect(replay.emitted).toEqual(live.emitted)
      expect(server.requests).toHaveLength(2)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('reads OPENAI_API_KEY and OPENAI_BASE_URL when not given', async () => {
    vi.stubEnv('OPENAI_API_KEY', CANARY)
    vi.stubEnv('OPENAI_BASE_URL', server.url)
    server.enqueue(verdict())
    const judge = llmJudge({ provider: 'openai', rubric: 'r', model: 'gpt-4o-mini' })
    expect((await judge.evaluate(view)).passed).toBe(true)
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY}`)
  })

  it('without any key it throws CONFIG_INVALID naming LLM_API_KEY at evaluation, and calls nothing', async () => {
    vi.stubEnv('OPENAI_API_KEY', '')
    const judge = llmJudge({ provider: 'openai', rubric: 'r', baseURL: server.url })
    const error = await rejection(Promise.resolve().then(() => judge.evaluate(view)))
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect(`${error.message} ${(error as Error & { hint?: string }).hint}`).toContain('LLM_API_KEY')
    expect(server.requests).toHaveLength(0)
  })

  it('defaults to gpt-4.1 for provider openai, and refuses an unknown provider', async () => {
    server.enqueue(verdict())
    const { model: _model, ...rest } = options()
    await llmJudge(rest).evaluate(view)
    expect(sent(0).model).toBe('gpt-4.1')
    let thrown: unknown
    try {
      llmJudge(options([], { provider: 'gemini' as 'openai' }))
    } catch (e) {
      thrown = e
    }
    expect(isAgentEvalOpsError(thrown, 'CONFIG_INVALID')).toBe(true)
    expect((thrown as Error).message).toContain('provider must be one of anthropic, openai')
  })
})

describe('the llm-judge adapter of a YAML config', () => {
  it('takes provider: openai and base_url, the key from OPENAI_API_KEY', async () => {
    vi.stubEnv('OPENAI_API_KEY', CANARY)
    server.enqueue(verdict())
    const judge = builtinRegistry().create('evaluator', 'llm-judge', {
      rubric: 'Is it right?',
      provider: 'openai',
      model: 'gpt-4o-mini',
      base_url: server.url,
    })
    expect((await judge.evaluate(view)).passed).toBe(true)
    expect(server.requests[0]).toMatchObject({ path: '/v1/chat/completions' })
    expect(() =>
      builtinRegistry().create('evaluator', 'llm-judge', { rubric: 'r', provider: 'gemini' }),
    ).toThrow(/provider/)
  })
})

describe('judgeGatewayFromEnv (monitor mode: LLM_API_BASE / LLM_API_KEY)', () => {
  it('routes the judge through the gateway the environment names, with its key', async () => {
    const gateway = judgeGatewayFromEnv({ LLM_API_BASE: server.url, LLM_API_KEY: CANARY })
    expect(gateway).toEqual({ provider: 'openai', baseURL: server.url, apiKey: CANARY })
    server.enqueue(verdict())
    const output = await llmJudge({ rubric: 'r', model: 'gpt-4o-mini', ...gateway }).evaluate(view)
    expect(output.passed).toBe(true)
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY}`)
  })

  it('is null when neither is set (the judge keeps its defaults), and refuses a base that is not a URL', () => {
    expect(judgeGatewayFromEnv({})).toBeNull()
    expect(judgeGatewayFromEnv({ LLM_API_BASE: ' ', LLM_API_KEY: '' })).toBeNull()
    expect(judgeGatewayFromEnv({ LLM_API_KEY: CANARY })).toEqual({ provider: 'openai', apiKey: CANARY })
    let thrown: unknown
    try {
      judgeGatewayFromEnv({ LLM_API_BASE: 'gateway:8080/v1', LLM_API_KEY: CANARY })
    } catch (e) {
      thrown = e
    }
    expect(isAgentEvalOpsError(thrown, 'CONFIG_INVALID')).toBe(true)
    expect((thrown as Error).message).toContain('LLM_API_BASE')
    expect((thrown as Error).message).not.toContain(CANARY)
  })
})
