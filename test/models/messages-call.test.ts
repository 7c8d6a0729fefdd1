import Anthropic, { BadRequestError } from '@anthropic-ai/sdk'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import {
  callMessages,
  parseRetryAfter,
  retryDelayMs,
  type AttemptInfo,
  type CallMessagesOptions,
  type MessagesRequest,
} from '../../src/models/index.ts'
import {
  errorReply,
  FakeMessagesServer,
  messageReply,
  replies,
  textReply,
} from '../support/fake-messages-server.ts'

const KEY = 'sk-ant-test-messages-call-0123456789'
const request: MessagesRequest = {
  model: 'claude-haiku-4-5',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hello' }],
}

let server: FakeMessagesServer
let client: Anthropic

beforeEach(async () => {
  server = await FakeMessagesServer.start()
  client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 })
})

afterEach(async () => {
  await server.close()
})

/** callMessages with its attempts collected and waits recorded instead of slept (unless `realSleep`). */
function call(options: CallMessagesOptions & { realSleep?: boolean } = {}) {
  const attempts: AttemptInfo[] = []
  const waits: number[] = []
  const { realSleep, ...rest } = options
  const promise = callMessages(client, request, {
    onAttempt: (info) => attempts.push(info),
    ...(realSleep ? {} : { sleep: async (ms: number) => void waits.push(ms) }),
    ...rest,
  })
  return { promise, attempts, waits }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected the call to fail'),
    (e: unknown) => e,
  )
}

describe('callMessages against the fake Messages API', () => {
  it('returns the message on a 200, reports one ok attempt with the usage, and sends one SDK attempt', async () => {
    server.enqueue(textReply('hi there', { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 4 }))
    const { promise, attempts } = call()
    const message = await promise
    expect(message.content).toEqual([{ type: 'text', text: 'hi there' }])
    expect(attempts).toEqual([
      {
        attempt: 1,
        status: 'ok',
        latencyMs: expect.any(Number) as number,
        usage: {
          input_tokens: 12,
          output_tokens: 3,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: 4,
        },
      },
    ])
    const [sent] = server.requests
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/messages' })
    expect(sent?.body).toMatchObject(request)
    // SDK 1.x sends an API key as a bearer token.
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(sent?.headers['x-stainless-retry-count']).toBe('0')
    expect(server.problems).toEqual([])
  })

  it('waits out a 429 retry-after given in seconds, then succeeds (real wait)', async () => {
    server.enqueue(replies.rateLimited('0.25'), textReply('ok'))
    const started = performance.now()
    const { promise, attempts } = call({ realSleep: true })
    await promise
    expect(performance.now() - started).toBeGreaterThanOrEqual(240)
    expect(attempts.map((a) => [a.attempt, a.status, a.httpStatus, a.retryInMs])).toEqual([
      [1, 'error', 429, 250],
      [2, 'ok', undefined, undefined],
    ])
    expect(attempts[0]?.error).toContain('429')
    expect(server.requests).toHaveLength(2)
  })

  it('honours retry-after as an HTTP date, and retry-after-ms', async () => {
    const inFiveSeconds = new Date(Date.now() + 5_000).toUTCString()
    server.enqueue(
      replies.rateLimited(inFiveSeconds),
      errorReply(429, 'rate_limit_error', 'slow down', { 'retry-after-ms': '120' }),
      textReply('ok'),
    )
    const { promise, waits } = call()
    await promise
    // The date has whole seconds, so the wait is between 4 and 5 seconds from now.
    expect(waits[0]).toBeGreaterThan(3_900)
    expect(waits[0]).toBeLessThanOrEqual(5_000)
    expect(waits[1]).toBe(120)
  })

  it('caps a long retry-after at maxDelayMs', async () => {
    server.enqueue(replies.rateLimited(3600), textReply('ok'))
    const { promise, waits } = call({ maxDelayMs: 2_000 })
    await promise
    expect(waits).toEqual([2_000])
  })

  it('retries a 529 with exponential backoff from the base delay', async () => {
    server.enqueue(replies.overloaded(), replies.overloaded(), textReply('ok'))
    const { promise, waits, attempts } = call({ baseDelayMs: 100 })
    await promise
    expect(attempts.map((a) => a.httpStatus)).toEqual([529, 529, undefined])
    // Jitter takes up to a quarter off each step: 100 → [75, 100], 200 → [150, 200].
    expect(waits[0]).toBeGreaterThanOrEqual(75)
    expect(waits[0]).toBeLessThanOrEqual(100)
    expect(waits[1]).toBeGreaterThanOrEqual(150)
    expect(waits[1]).toBeLessThanOrEqual(200)
  })

  it('gives up after maxAttempts 5xx replies with INFRA_FAILURE, every attempt reported', async () => {
    server.enqueue(replies.serverError(), replies.serverError(), replies.serverError())
    const { promise, attempts } = call()
    const error = await rejection(promise)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toMatch(/failed after 3 attempt\(s\): HTTP 500/)
    expect(attempts.map((a) => a.status)).toEqual(['error', 'error', 'error'])
    // The last failure is not followed by a wait.
    expect(attempts.map((a) => a.retryInMs === undefined)).toEqual([false, false, true])
    expect(server.requests).toHaveLength(3)
  })

  it('does not retry a 400 (or any 4xx but 429)', async () => {
    server.enqueue(replies.badRequest('max_tokens: too large'))
    const { promise, attempts } = call()
    const error = await rejection(promise)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain('not retryable')
    expect((error as Error).message).toContain('max_tokens: too large')
    expect((error as Error).cause).toBeInstanceOf(BadRequestError)
    expect(attempts).toHaveLength(1)
    expect(server.requests).toHaveLength(1)

    server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'))
    const auth = await rejection(call().promise)
    expect((auth as Error).message).toContain('ANTHROPIC_API_KEY')
    expect(server.requests).toHaveLength(2)
  })

  it('retries a 200 whose body is not JSON, or not a message', async () => {
    server.enqueue(
      replies.malformed(),
      { status: 200, raw: 'plain text', headers: { 'content-type': 'text/plain' } },
      { status: 200, body: { hello: 'world' } },
      textReply('finally'),
    )
    const { promise, attempts } = call({ maxAttempts: 4 })
    const message = await promise
    expect(message.content[0]).toMatchObject({ text: 'finally' })
    expect(attempts.map((a) => a.status)).toEqual(['error', 'error', 'error', 'ok'])
    expect(attempts.slice(0, 3).every((a) => a.error?.startsWith('malformed response body'))).toBe(true)
  })

  it('retries connection failures', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    client = new Anthropic({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 })
    const { promise, attempts } = call({ maxAttempts: 2 })
    const error = await rejection(promise)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect(attempts.map((a) => a.error?.startsWith('connection failed'))).toEqual([true, true])
  })

  it('makes one HTTP request per attempt even when the client would retry on its own', async () => {
    client = new Anthropic({ apiKey: KEY, baseURL: server.url }) // the SDK default: 2 retries
    server.enqueue(replies.serverError(), replies.serverError())
    await rejection(call({ maxAttempts: 2 }).promise)
    expect(server.requests).toHaveLength(2)
    expect(server.problems).toEqual([])
  })

  it('stops a slow response promptly when the signal aborts', async () => {
    server.enqueue(replies.slow(10_000, messageReply({ text: 'too late' })))
    const controller = new AbortController()
    const started = performance.now()
    const { promise, attempts } = call({ signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    const error = await rejection(promise)
    expect(isAgentEvalOpsError(error, 'RUN_ABORTED')).toBe(true)
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(attempts).toMatchObject([{ attempt: 1, status: 'error', error: 'aborted' }])
  })

  it('stops waiting out a backoff when the signal aborts', async () => {
    server.enqueue(replies.rateLimited(20))
    const controller = new AbortController()
    const started = performance.now()
    const { promise } = call({ signal: controller.signal, realSleep: true })
    setTimeout(() => controller.abort(), 50)
    expect(isAgentEvalOpsError(await rejection(promise), 'RUN_ABORTED')).toBe(true)
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(server.requests).toHaveLength(1)
  })

  it('makes no request when the signal is already aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const { promise } = call({ signal: controller.signal })
    expect(isAgentEvalOpsError(await rejection(promise), 'RUN_ABORTED')).toBe(true)
    expect(server.requests).toHaveLength(0)
  })

  it('redacts the client’s key from error text, even when the server echoes it', async () => {
    server.enqueue(replies.serverError(`bad key ${KEY}`))
    const { promise, attempts } = call({ maxAttempts: 1 })
    const error = await rejection(promise)
    expect((error as Error).message).not.toContain(KEY)
    expect((error as Error).message).toContain('[redacted]')
    // The SDK's own error would carry the echoed key: it is not attached.
    expect((error as Error).cause).toBeUndefined()
    expect(JSON.stringify(attempts)).not.toContain(KEY)
  })

  it('refuses a maxAttempts below 1', async () => {
    const error = await rejection(call({ maxAttempts: 0 }).promise)
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect(server.requests).toHaveLength(0)
  })
})

describe('parseRetryAfter', () => {
  const headers = (h: Record<string, string>) => new Headers(h)
  const now = Date.parse('2026-01-01T00:00:00Z')

  it('reads seconds, fractional seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter(headers({ 'retry-after': '2' }), now)).toBe(2_000)
    expect(parseRetryAfter(headers({ 'retry-after': '0.5' }), now)).toBe(500)
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7_000)
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250)
  })

  it('gives a past date as 0 and anything unreadable as undefined', () => {
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0)
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(parseRetryAfter(headers({ 'retry-after': '-3' }), now)).toBeUndefined()
    expect(parseRetryAfter(headers({}), now)).toBeUndefined()
  })
})

describe('retryDelayMs', () => {
  it('doubles from the base delay, with at most a quarter of jitter, up to the cap', () => {
    for (let attempt = 1; attempt <= 4; attempt++) {
      const ms = retryDelayMs(attempt, undefined, { baseDelayMs: 400, maxDelayMs: 30_000 })
      expect(ms).toBeLessThanOrEqual(400 * 2 ** (attempt - 1))
      expect(ms).toBeGreaterThanOrEqual(300 * 2 ** (attempt - 1))
    }
    expect(retryDelayMs(20, undefined, { baseDelayMs: 400, maxDelayMs: 1_000 })).toBeLessThanOrEqual(1_000)
  })

  it('uses the server’s wait as given, capped', () => {
    expect(retryDelayMs(1, 1_234)).toBe(1_234)
    expect(retryDelayMs(1, 0)).toBe(0)
    expect(retryDelayMs(1, 90_000)).toBe(30_000)
  })
})
