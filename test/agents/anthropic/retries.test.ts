import { describe, expect, it } from 'vitest'
import { anthropicRunner } from '../../../src/agents/anthropic/index.ts'
import { replies, textReply } from '../../support/fake-messages-server.ts'
import { fakeApi, kinds, modelCalls, plainTask, trial } from './helpers.ts'

const KEY = 'sk-ant-test-retries-0123456789abcdef'
const anyNumber = expect.any(Number) as number

const api = fakeApi(KEY)
const runner = api.runner

describe('anthropicRunner: retried model calls, visible in the trace', () => {
  it('waits out a 429 with retry-after, then succeeds; the failed attempt is an error event, not a turn', async () => {
    api.server().enqueue(replies.rateLimited('0.05'), textReply('hi', { input_tokens: 7, output_tokens: 3 }))
    const started = performance.now()
    const { record, events } = await trial(runner(), plainTask)
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
    expect(kinds(events)).toEqual([
      'agent.model_call',
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
    ])
    const [failed, ok] = modelCalls(events)
    expect(failed?.payload).toEqual({
      model: 'claude-haiku-4-5',
      status: 'error',
      attempt: 1,
      turn: 1,
      latencyMs: anyNumber,
      error: 'HTTP 429 rate_limit_error: rate limited',
      httpStatus: 429,
      retryInMs: 50,
    })
    expect([failed?.tokensDelta, failed?.costDeltaUsd]).toEqual([0, 0])
    expect(ok?.payload).toMatchObject({ status: 'ok', attempt: 2, turn: 1, inputTokens: 7, outputTokens: 3 })
    expect(record.result).toMatchObject({ terminatedBy: 'completed', turns: 1, totalTokens: 10 })
    expect(api.server().requests).toHaveLength(2)
  })

  it('retries a 529 overloaded, then succeeds', async () => {
    api.server().enqueue(replies.overloaded(), textReply('hi'))
    const { record, events } = await trial(runner(), plainTask)
    expect(
      modelCalls(events).map((e) => [e.payload.status, e.payload.attempt, e.payload.httpStatus]),
    ).toEqual([
      ['error', 1, 529],
      ['ok', 2, undefined],
    ])
    expect(record.outcome).toBe('passed')
  })

  it('retries a malformed body, then succeeds', async () => {
    api.server().enqueue(replies.malformed(), textReply('hi'))
    const { record, events } = await trial(runner(), plainTask)
    const [failed] = modelCalls(events)
    expect(failed?.payload).toMatchObject({ status: 'error', attempt: 1 })
    expect(failed?.payload.error).toContain('malformed response body')
    expect(record.result).toMatchObject({ terminatedBy: 'completed', turns: 1, finalAnswer: 'hi' })
  })

  it('gives up after maxAttempts 5xx → infra_failure, every attempt traced, no turn taken', async () => {
    api.server().enqueue(replies.serverError(), replies.serverError(), replies.serverError())
    const { record, events } = await trial(runner({ maxAttempts: 3 }), plainTask)
    expect(record.outcome).toBe('infra_failure')
    expect(record.result).toMatchObject({ terminatedBy: 'infra_failure', turns: 0, totalTokens: 0 })
    expect(record.result?.error).toContain('failed after 3 attempt(s)')
    expect(kinds(events)).toEqual([
      'agent.model_call',
      'agent.model_call',
      'agent.model_call',
      'agent.terminal',
    ])
    expect(
      modelCalls(events).map((e) => [e.payload.attempt, e.payload.httpStatus, 'retryInMs' in e.payload]),
    ).toEqual([
      [1, 500, true],
      [2, 500, true],
      [3, 500, false],
    ])
    expect(api.server().requests).toHaveLength(3)
  })

  it('makes 4 attempts by default', async () => {
    for (let i = 0; i < 4; i++) api.server().enqueue(replies.overloaded())
    const { record } = await trial(runner(), plainTask)
    expect(record.result?.error).toContain('failed after 4 attempt(s)')
    expect(api.server().requests).toHaveLength(4)
  })

  it('does not retry a 401: infra_failure with the hint about the key', async () => {
    const wrong = anthropicRunner({
      model: 'claude-haiku-4-5',
      apiKey: 'sk-ant-wrong-key-000000',
      baseURL: api.server().url,
    })
    const { record, events } = await trial(wrong, plainTask)
    expect(record.outcome).toBe('infra_failure')
    expect(record.result?.error).toContain('HTTP 401')
    expect(record.result?.error).toContain('ANTHROPIC_API_KEY')
    expect(modelCalls(events).map((e) => [e.payload.status, e.payload.httpStatus])).toEqual([['error', 401]])
    expect(api.server().requests).toHaveLength(1)
  })
})
