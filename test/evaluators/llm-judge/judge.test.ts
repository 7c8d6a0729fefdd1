import Anthropic from '@anthropic-ai/sdk'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  isAgentEvalOpsError,
  type EmitUsage,
  type EvaluatorContext,
  type EvaluatorOutput,
  type TracePayload,
} from '../../../src/core/index.ts'
import { llmJudge, runJudge, type LlmJudgeOptions } from '../../../src/evaluators/llm-judge/index.ts'
import {
  FakeMessagesServer,
  messageReply,
  replies,
  textReply,
  type UsageCounts,
} from '../../support/fake-messages-server.ts'
import { ev, trace, viewOf } from '../trace-fixture.ts'

/** A key that must never show up in a score, an event or an error. */
const CANARY = 'sk-ant-CANARY-7f3a9c1e5b2d4f6a8c0e'

// Steps 0–4.
const events = trace(
  ev.plan('add the two numbers'),
  ev.call('calc', { expr: '1+1' }),
  ev.result('calc', 2),
  ev.answer('2'),
  ev.terminal('completed'),
)
const view = viewOf(events, { task: { prompt: 'What is 1+1?' } })

let server: FakeMessagesServer

beforeEach(async () => {
  server = await FakeMessagesServer.start()
})

afterEach(async () => {
  await server.close()
  vi.unstubAllEnvs()
})

interface Emitted {
  payload: TracePayload<'evaluator.model_call'>
  usage: EmitUsage | undefined
}

/** An evaluator context that keeps what it is given. */
function recorder(signal: AbortSignal = new AbortController().signal) {
  const emitted: Emitted[] = []
  const ctx: EvaluatorContext = {
    signal,
    emit: (_kind, payload, usage) => {
      emitted.push({ payload, usage })
      return 100 + emitted.length - 1
    },
  }
  return { ctx, emitted, statuses: () => emitted.map((e) => e.payload.status) }
}

function options(overrides: Partial<LlmJudgeOptions> = {}): LlmJudgeOptions {
  return {
    rubric: 'The final answer must be 2, computed with the calculator.',
    model: 'claude-haiku-4-5',
    apiKey: CANARY,
    baseURL: server.url,
    retry: { baseDelayMs: 1 },
    ...overrides,
  }
}

function verdict(
  v: { score?: number; passed?: boolean; reasoning?: string; citations?: number[] } = {},
  usage?: UsageCounts,
) {
  const body = { score: 1, passed: true, reasoning: 'The answer 2 is correct.', citations: [3], ...v }
  return textReply(JSON.stringify(body), usage)
}

async function evaluate(
  opts: LlmJudgeOptions,
  ctx?: EvaluatorContext,
): Promise<{ output: EvaluatorOutput; kind: string }> {
  const judge = llmJudge(opts)
  return { output: await judge.evaluate(view, ctx), kind: judge.kind }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.unreachable('expected the judge to fail'),
    (e: unknown) => e as Error,
  )
}

function sentBody(index: number): {
  model: string
  max_tokens: number
  temperature?: number
  system: string
  messages: { role: string; content: string }[]
} {
  return server.requests[index]?.body as ReturnType<typeof sentBody>
}

describe('llmJudge against the fake Messages API', () => {
  it('passes on a passing verdict and records one ok model call', async () => {
    server.enqueue(verdict({ citations: [3, 1] }, { input_tokens: 900, output_tokens: 60 }))
    const { ctx, emitted } = recorder()
    const { output, kind } = await evaluate(options(), ctx)
    expect(kind).toBe('llm_judge')
    expect(output).toMatchObject({ score: 1, passed: true, confidence: 1, citations: [1, 3] })
    expect(output.explanation).toContain('majority of 1 judgement(s): 1 pass, 0 fail → passed')
    expect(output.explanation).toContain('The answer 2 is correct.')
    expect(output.findings).toEqual([
      {
        type: 'judge_verdict',
        message: 'judgement 1/1: score 1, pass: The answer 2 is correct.',
        citations: [1, 3],
      },
    ])
    expect(emitted).toHaveLength(1)
    expect(emitted[0]?.payload).toMatchObject({
      evaluatorId: 'llm_judge',
      model: 'claude-haiku-4-5',
      attempt: 1,
      status: 'ok',
      inputTokens: 900,
      outputTokens: 60,
      repeat: 1,
    })
    expect(emitted[0]?.usage).toEqual({ tokens: 960, costUsd: expect.any(Number) as number })
    expect(server.problems).toEqual([])
  })

  it('fails on a failing verdict', async () => {
    server.enqueue(verdict({ score: 0.2, passed: false, reasoning: 'It guessed.', citations: [3] }))
    const { output } = await evaluate(options())
    expect(output).toMatchObject({ score: 0.2, passed: false, confidence: 1, citations: [3] })
    expect(output.explanation).toContain('0 pass, 1 fail → failed')
  })

  it('sends temperature 0, the configured model, a JSON-verdict system prompt and a numbered transcript', async () => {
    server.enqueue(verdict())
    await evaluate(options({ model: 'claude-sonnet-4-20250514', maxTokens: 333 }))
    const body = sentBody(0)
    expect(body).toMatchObject({ model: 'claude-sonnet-4-20250514', max_tokens: 333, temperature: 0 })
    expect(body.system).toContain('exactly one JSON object')
    expect(body.messages).toHaveLength(1)
    const prompt = body.messages[0]!.content
    expect(prompt).toContain('<rubric>\nThe final answer must be 2, computed with the calculator.\n</rubric>')
    expect(prompt).toContain('<task>\nWhat is 1+1?\n</task>')
    expect(prompt).toContain('<final_answer>\n2\n</final_answer>')
    for (const line of [
      '[step 0] plan: add the two numbers',
      '[step 1] tool call calc {"expr":"1+1"}',
      '[step 2] tool result calc: 2',
      '[step 3] final answer: 2',
      '[step 4] end: completed, success true',
    ])
      expect(prompt).toContain(line)
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY}`)
  })

  it('defaults to claude-sonnet-4-6, 1024 max tokens and the id llm_judge', async () => {
    const warn = vi.spyOn(console, 'warn')
    server.enqueue(verdict())
    const { ctx, emitted } = recorder()
    const { model: _model, ...rest } = options()
    const judge = llmJudge(rest)
    expect(judge.id).toBe('llm_judge')
    await judge.evaluate(view, ctx)
    expect(sentBody(0)).toMatchObject({ model: 'claude-sonnet-4-6', max_tokens: 1024 })
    expect(emitted[0]?.payload).toMatchObject({ evaluatorId: 'llm_judge', model: 'claude-sonnet-4-6' })
    // The default is a model the SDK does not list as deprecated, so it prints no deprecation warning.
    expect(warn).not.toHaveBeenCalled()
    warn.mockRestore()
  })

  it('leaves temperature out when asked to (temperature: null)', async () => {
    server.enqueue(verdict())
    await evaluate(options({ temperature: null }))
    expect(sentBody(0)).not.toHaveProperty('temperature')
  })

  it('accepts a fenced verdict', async () => {
    server.enqueue(
      textReply('```json\n{"score": 0.9, "passed": true, "reasoning": "ok", "citations": []}\n```'),
    )
    expect((await evaluate(options())).output).toMatchObject({ score: 0.9, passed: true, citations: [] })
  })

  it('asks again after a malformed reply, quoting it back, and uses the valid one', async () => {
    server.enqueue(textReply('I think the agent did great!'), verdict())
    const { ctx, emitted, statuses } = recorder()
    const { output } = await evaluate(options(), ctx)
    expect(output.passed).toBe(true)
    expect(statuses()).toEqual(['malformed', 'ok'])
    expect(emitted.map((e) => e.payload.attempt)).toEqual([1, 2])
    expect(emitted[0]?.payload.error).toContain('no JSON object found')
    const retry = sentBody(1).messages
    expect(retry.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(retry[1]?.content).toBe('I think the agent did great!')
    expect(retry[2]?.content).toContain('not a valid verdict')
  })

  it('treats citations of steps that are not in the trace as malformed', async () => {
    server.enqueue(verdict({ citations: [3, 42] }), verdict({ citations: [3] }))
    const { ctx, emitted, statuses } = recorder()
    const { output } = await evaluate(options(), ctx)
    expect(statuses()).toEqual(['malformed', 'ok'])
    expect(emitted[0]?.payload.error).toContain('cites step(s) 42')
    expect(output.citations).toEqual([3])
  })

  it('gives up with INFRA_FAILURE when every reply is malformed, after malformedRetries follow-ups', async () => {
    server.enqueue(textReply('nope'), textReply('{"score": 2}'))
    const { ctx, statuses } = recorder()
    const error = await rejection(evaluate(options({ malformedRetries: 1 }), ctx))
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect(error.message).toContain('no valid verdict in 2 replies')
    expect(statuses()).toEqual(['malformed', 'malformed'])
    expect(server.requests).toHaveLength(2)
  })

  it('waits out a 429 with a small retry-after, then judges; both attempts are events', async () => {
    server.enqueue(replies.rateLimited('0.3'), verdict())
    const { ctx, emitted, statuses } = recorder()
    const started = performance.now()
    const { output } = await evaluate(options(), ctx)
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    expect(output.passed).toBe(true)
    expect(statuses()).toEqual(['error', 'ok'])
    expect(emitted[0]?.payload).toMatchObject({ attempt: 1, httpStatus: 429, retryInMs: 300 })
    expect(emitted[0]?.payload.error).toContain('429')
    expect(emitted[0]?.usage).toEqual({ tokens: 0, costUsd: 0 })
    expect(emitted[1]?.payload.attempt).toBe(2)
  })

  it('retries a 529 overloaded reply', async () => {
    server.enqueue(replies.overloaded(), verdict())
    const { ctx, emitted } = recorder()
    expect((await evaluate(options(), ctx)).output.passed).toBe(true)
    expect(emitted.map((e) => [e.payload.status, e.payload.httpStatus])).toEqual([
      ['error', 529],
      ['ok', undefined],
    ])
  })

  it('rejects with INFRA_FAILURE after three 500s, each attempt an event, never a verdict', async () => {
    server.enqueue(replies.serverError(), replies.serverError(), replies.serverError())
    const { ctx, statuses } = recorder()
    const error = await rejection(evaluate(options(), ctx))
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect(error.message).toContain('failed after 3 attempt(s)')
    expect(statuses()).toEqual(['error', 'error', 'error'])
    expect(server.requests).toHaveLength(3)
  })

  it('k=3, majority: 2 pass and 1 fail pass, with confidence 2/3 and one finding per judgement', async () => {
    server.enqueue(
      verdict({ score: 1, passed: true, citations: [3] }),
      verdict({ score: 0.2, passed: false, reasoning: 'Not shown.', citations: [1] }),
      verdict({ score: 0.9, passed: true, citations: [2, 3] }),
    )
    const { ctx, emitted } = recorder()
    const { output } = await evaluate(options({ repeats: 3 }), ctx)
    expect(output.passed).toBe(true)
    expect(output.score).toBeCloseTo(0.7, 12)
    expect(output.confidence).toBeCloseTo(2 / 3, 12)
    expect(output.citations).toEqual([1, 2, 3])
    expect(output.explanation).toContain('majority of 3 judgement(s): 2 pass, 1 fail → passed')
    expect(output.findings?.map((f) => f.message)).toEqual([
      'judgement 1/3: score 1, pass: The answer 2 is correct.',
      'judgement 2/3: score 0.2, fail: Not shown.',
      'judgement 3/3: score 0.9, pass: The answer 2 is correct.',
    ])
    expect(emitted.map((e) => e.payload.repeat)).toEqual([1, 2, 3])
    // Each judgement is its own conversation.
    expect([0, 1, 2].map((i) => sentBody(i).messages.length)).toEqual([1, 1, 1])
  })

  it('k=2, majority: a tie fails', async () => {
    server.enqueue(verdict({ passed: true }), verdict({ score: 0, passed: false }))
    const { output } = await evaluate(options({ repeats: 2 }))
    expect(output).toMatchObject({ passed: false, score: 0.5, confidence: 0.5 })
  })

  it("rule 'all': one failing judgement fails", async () => {
    server.enqueue(verdict(), verdict(), verdict({ score: 0.4, passed: false }))
    const { output } = await evaluate(options({ repeats: 3, rule: 'all' }))
    expect(output.passed).toBe(false)
    expect(output.confidence).toBeCloseTo(1 / 3, 12)
    expect(output.explanation).toContain('all 3 judgement(s) must pass: 2 pass, 1 fail → failed')
  })

  it("rule 'mean': the mean score against the threshold", async () => {
    const scores = () =>
      server.enqueue(
        verdict({ score: 0.9, passed: false }),
        verdict({ score: 0.6, passed: false }),
        verdict({ score: 0.3, passed: false }),
      )
    scores()
    const lenient = await evaluate(options({ repeats: 3, rule: 'mean', threshold: 0.5 }))
    expect(lenient.output.passed).toBe(true)
    expect(lenient.output.explanation).toContain(
      'mean score 0.6 of 3 judgement(s) (0.9, 0.6, 0.3) vs threshold 0.5',
    )
    scores()
    const strict = await evaluate(options({ repeats: 3, rule: 'mean', threshold: 0.7 }))
    expect(strict.output.passed).toBe(false)
    expect(strict.output.score).toBeCloseTo(0.6, 12)
  })

  it('costs every billed attempt from its usage and the price table', async () => {
    // claude-sonnet-4: $3 in, $15 out, $3.75 cache write, $0.30 cache read per million tokens.
    const usage = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 500 }
    const each = (1000 * 3 + 200 * 15 + 500 * 0.3) / 1e6 // $0.00615
    server.enqueue(textReply('not json', usage), replies.serverError(), verdict({}, usage))
    const { ctx, emitted } = recorder()
    const { output } = await evaluate(options({ model: 'claude-sonnet-4' }), ctx)
    expect(output.costUsd).toBeCloseTo(2 * each, 12)
    expect(emitted.map((e) => e.usage?.costUsd)).toEqual([
      expect.closeTo(each, 12),
      0,
      expect.closeTo(each, 12),
    ])
    expect(emitted.map((e) => e.usage?.tokens)).toEqual([1700, 0, 1700])
    expect(output.explanation).not.toContain('cost unknown')
  })

  it('an unknown model costs 0 and the explanation says the cost is unknown', async () => {
    server.enqueue(verdict({}, { input_tokens: 5000, output_tokens: 500 }))
    const { ctx, emitted } = recorder()
    const { output } = await evaluate(options({ model: 'claude-unknown-9' }), ctx)
    expect(output.costUsd).toBe(0)
    expect(output.explanation).toContain('cost unknown for model claude-unknown-9')
    expect(emitted[0]?.usage).toEqual({ tokens: 5500, costUsd: 0 })
    expect(emitted[0]?.payload.costUnknown).toBe(true)
  })

  it('never lets the API key into the score, the events or the error, even when the server echoes it', async () => {
    server.enqueue(
      replies.serverError(`invalid key ${CANARY}`),
      textReply(`malformed, and the key is ${CANARY}`),
      verdict({ reasoning: `echoing ${CANARY}` }),
    )
    const { ctx, emitted } = recorder()
    const { output } = await evaluate(options({ id: 'canary-judge' }), ctx)
    expect(emitted).toHaveLength(3)
    expect(JSON.stringify({ output, emitted })).not.toContain(CANARY)
    expect(JSON.stringify(emitted)).toContain('[redacted]')

    server.enqueue(replies.serverError(`still ${CANARY}`))
    const error = await rejection(evaluate(options({ maxAttempts: 1 })))
    expect(error.message).not.toContain(CANARY)
    expect(String(error.stack)).not.toContain(CANARY)
  })

  it('makes one request per attempt even with a caller’s client that would retry on its own', async () => {
    const client = new Anthropic({ apiKey: CANARY, baseURL: server.url }) // SDK default: 2 retries
    server.enqueue(replies.serverError(), replies.serverError())
    const { ctx, statuses } = recorder()
    await rejection(evaluate(options({ client, maxAttempts: 2 }), ctx))
    expect(server.requests).toHaveLength(2)
    expect(statuses()).toEqual(['error', 'error'])
  })

  it('reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL when not given, and creates its client once', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', CANARY)
    vi.stubEnv('ANTHROPIC_BASE_URL', server.url)
    server.enqueue(verdict(), verdict())
    const judge = llmJudge({ rubric: 'r', model: 'claude-haiku-4-5' })
    expect((await judge.evaluate(view)).passed).toBe(true)
    expect((await judge.evaluate(view)).passed).toBe(true)
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${CANARY}`,
      `Bearer ${CANARY}`,
    ])
  })

  it('without any API key it throws CONFIG_INVALID at evaluation, not at definition, and calls nothing', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '')
    const judge = llmJudge({ rubric: 'r', baseURL: server.url })
    const error = await rejection(Promise.resolve().then(() => judge.evaluate(view)))
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect(error.message).toContain('ANTHROPIC_API_KEY')
    expect(server.requests).toHaveLength(0)
  })

  it('stops when the run is cancelled', async () => {
    const controller = new AbortController()
    controller.abort()
    const { ctx } = recorder(controller.signal)
    const error = await rejection(evaluate(options(), ctx))
    expect(isAgentEvalOpsError(error, 'RUN_ABORTED')).toBe(true)
    expect(server.requests).toHaveLength(0)
  })

  it('runJudge judges a trial view without a context (for the toSatisfyJudge matcher)', async () => {
    server.enqueue(verdict({ score: 0.75, passed: true, citations: [2] }))
    const output = await runJudge(view, options({ rubric: 'Uses the calculator.' }))
    expect(output).toMatchObject({ score: 0.75, passed: true, citations: [2] })
    expect(sentBody(0).messages[0]?.content).toContain('Uses the calculator.')
  })

  it('prices by the model it asked for, whatever model id the reply names', async () => {
    const text = JSON.stringify({ score: 1, passed: true, reasoning: 'ok', citations: [] })
    server.enqueue(
      messageReply({ text, model: 'claude-opus-4-1', usage: { input_tokens: 1e6, output_tokens: 0 } }),
    )
    const { output } = await evaluate(options({ model: 'claude-haiku-4-5' }))
    expect(output.costUsd).toBe(1)
  })

  it('refuses invalid options when it is defined', () => {
    const bad: Partial<LlmJudgeOptions>[] = [
      { rubric: '  ' },
      { repeats: 0 },
      { repeats: 1.5 },
      { threshold: 1.5 },
      { rule: 'most' as 'majority' },
      { maxAttempts: 0 },
      { malformedRetries: -1 },
      { maxTokens: 0 },
      { model: '' },
      { temperature: 2 },
    ]
    for (const overrides of bad) {
      let thrown: unknown
      try {
        llmJudge(options(overrides))
      } catch (e) {
        thrown = e
      }
      expect(isAgentEvalOpsError(thrown, 'CONFIG_INVALID'), JSON.stringify(overrides)).toBe(true)
    }
  })
})
