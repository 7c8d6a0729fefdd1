// openaiRunner shares the Anthropic runner's rate limiter: every HTTP attempt, retries included, takes a slot,
// and runners of the same endpoint and model share one limiter per worker.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RateLimiter, sharedRateLimiter, type LimiterClock } from '../../../src/agents/anthropic/index.ts'
import { openaiRunner } from '../../../src/agents/openai/index.ts'
import { chatErrors, FakeOpenAIServer } from '../../support/fake-openai-server.ts'
import { plainTask, trial } from '../anthropic/helpers.ts'

const KEY = 'sk-test-openai-limiter-0123456789'

/** A clock whose timers never fire: a slot that is not free now never comes. */
const frozen: LimiterClock = { now: () => 0, setTimer: () => () => {} }

let server: FakeOpenAIServer
beforeEach(async () => {
  server = await FakeOpenAIServer.start()
})
afterEach(async () => {
  await server.close()
})

/** Whether the limiter has a slot left now: a probe that waits is cancelled, not left hanging. */
async function hasFreeSlot(limiter: RateLimiter): Promise<boolean> {
  const probe = new AbortController()
  const acquired = limiter.acquire(probe.signal).then(
    () => true,
    () => false,
  )
  const waited = limiter.waiting > 0
  probe.abort()
  return !waited && (await acquired)
}

describe('openaiRunner and the rate limiter', () => {
  it('every attempt, the retried one too, takes a slot of the limiter', async () => {
    server.enqueue(chatErrors.rateLimited('0'), { text: 'hi' })
    const limiter = new RateLimiter(3, frozen)
    const runner = openaiRunner({ model: 'gpt-4.1-mini', apiKey: KEY, baseURL: server.url, limiter })
    const { record } = await trial(runner, plainTask)
    expect(record.result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'hi' })
    expect(server.requests).toHaveLength(2)
    // Two of three taken by the trial, the third by the first probe: none is left for a second.
    expect(await hasFreeSlot(limiter)).toBe(true)
    expect(await hasFreeSlot(limiter)).toBe(false)
  })

  it('requestsPerMinute uses the worker-wide limiter of the endpoint and model', async () => {
    server.enqueue({ text: 'hi' })
    const runner = openaiRunner({
      model: 'gpt-4.1-nano',
      apiKey: KEY,
      baseURL: server.url,
      requestsPerMinute: 1,
    })
    const { record } = await trial(runner, plainTask)
    expect(record.result?.terminatedBy).toBe('completed')
    // The one slot of the minute went to the trial's request, through the limiter any other runner would share.
    const shared = sharedRateLimiter(server.url, 'gpt-4.1-nano', 1)
    expect(await hasFreeSlot(shared)).toBe(false)
  })
})
