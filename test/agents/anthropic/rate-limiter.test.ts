import { afterEach, describe, expect, it } from 'vitest'
import {
  anthropicRunner,
  RATE_WINDOW_MS,
  RateLimiter,
  sharedRateLimiter,
  type LimiterClock,
} from '../../../src/agents/anthropic/index.ts'
import { defineTask, isAgentEvalOpsError, type TaskSpec } from '../../../src/core/index.ts'
import {
  FakeMessagesServer,
  messageReply,
  replies,
  textReply,
  toolUseBlock,
  type RecordedRequest,
} from '../../support/fake-messages-server.ts'
import { modelCalls, trial, until, weatherTools } from './helpers.ts'

/** A clock that moves only when told to, one due timer at a time. */
class FakeClock implements LimiterClock {
  time = 0
  private timers: { at: number; fn: () => void }[] = []

  now(): number {
    return this.time
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.time + ms, fn }
    this.timers.push(timer)
    return () => {
      this.timers = this.timers.filter((t) => t !== timer)
    }
  }

  get pendingTimers(): number {
    return this.timers.length
  }

  /** Jumps to the earliest timer and fires it; false when none is set. */
  advanceToNextTimer(): boolean {
    const next = this.timers.reduce<{ at: number; fn: () => void } | undefined>(
      (a, t) => (a === undefined || t.at < a.at ? t : a),
      undefined,
    )
    if (!next) return false
    this.timers = this.timers.filter((t) => t !== next)
    this.time = Math.max(this.time, next.at)
    next.fn()
    return true
  }
}

/** The most start times that fall in any one window [t, t + 60 s). */
function busiestWindow(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (const [i, start] of sorted.entries()) {
    let n = 0
    for (let j = i; j < sorted.length && sorted[j]! < start + RATE_WINDOW_MS; j++) n++
    most = Math.max(most, n)
  }
  return most
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('RateLimiter (sliding 60 s window)', () => {
  it('lets R requests through at once and the rest as the window slides, first come first served', async () => {
    const clock = new FakeClock()
    const limiter = new RateLimiter(3, clock)
    const granted: [number, number][] = []
    const all = Array.from({ length: 8 }, (_, i) =>
      limiter.acquire().then(() => void granted.push([i, clock.now()])),
    )
    await flush()
    expect(granted).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
    ])
    expect(limiter.waiting).toBe(5)
    for (let i = 0; i < 10 && clock.advanceToNextTimer(); i++) await flush()
    await Promise.all(all)
    expect(granted).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 60_000],
      [4, 60_000],
      [5, 60_000],
      [6, 120_000],
      [7, 120_000],
    ])
    expect(busiestWindow(granted.map(([, t]) => t))).toBe(3)
    expect(clock.pendingTimers).toBe(0)
  })

  it('slides: a slot frees 60 s after the request that took it, not at a minute boundary', async () => {
    const clock = new FakeClock()
    const limiter = new RateLimiter(2, clock)
    await limiter.acquire()
    clock.time = 40_000
    await limiter.acquire()
    let third = -1
    const waiting = limiter.acquire().then(() => (third = clock.now()))
    await flush()
    expect(third).toBe(-1)
    clock.advanceToNextTimer()
    await waiting
    expect(third).toBe(60_000)
  })

  it('ends a wait when its signal aborts, with the reason, and moves the queue on', async () => {
    const clock = new FakeClock()
    const limiter = new RateLimiter(1, clock)
    await limiter.acquire()
    const controller = new AbortController()
    const first = limiter.acquire(controller.signal)
    const second = limiter.acquire()
    const reason = new Error('limit reached')
    controller.abort(reason)
    await expect(first).rejects.toBe(reason)
    expect(limiter.waiting).toBe(1)
    clock.advanceToNextTimer()
    await second
    expect(clock.now()).toBe(60_000)
    expect(limiter.waiting).toBe(0)
    await expect(limiter.acquire(AbortSignal.abort(reason))).rejects.toBe(reason)
  })

  it('tightens but never loosens, and refuses a rate that is not a whole number ≥ 1', () => {
    const limiter = new RateLimiter(10, new FakeClock())
    limiter.tighten(4)
    limiter.tighten(20)
    expect(limiter.requestsPerMinute).toBe(4)
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      let caught: unknown
      try {
        new RateLimiter(bad)
      } catch (e) {
        caught = e
      }
      expect(isAgentEvalOpsError(caught, 'CONFIG_INVALID')).toBe(true)
    }
  })

  it('is shared per endpoint and model within the process', () => {
    const a = sharedRateLimiter('http://127.0.0.1:1/', 'claude-x', 30)
    const b = sharedRateLimiter('http://127.0.0.1:1', 'claude-x', 20)
    const c = sharedRateLimiter('http://127.0.0.1:1', 'claude-y', 30)
    expect(b).toBe(a)
    expect(a.requestsPerMinute).toBe(20)
    expect(c).not.toBe(a)
  })
})

describe('RateLimiter across concurrent trials', () => {
  let server: FakeMessagesServer | undefined
  afterEach(async () => {
    await server?.close()
  })

  it('N concurrent trials never send more than R requests in any 60 s window, retries included', async () => {
    const clock = new FakeClock()
    const R = 4
    const N = 5
    const limiter = new RateLimiter(R, clock)
    const sentAt: number[] = []
    // The fake model: a tool call first, then an answer; the very first request of all is rate-limited.
    server = await FakeMessagesServer.start({
      responder: (request: RecordedRequest) => {
        sentAt.push(clock.now())
        if (request.index === 0) return replies.rateLimited('0')
        const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages
        return messages.length === 1
          ? messageReply({
              content: [toolUseBlock('get_weather', { city: 'Paris' }, `toolu_${request.index}`)],
            })
          : textReply('18°C')
      },
    })
    const runner = anthropicRunner({
      model: 'claude-haiku-4-5',
      apiKey: 'sk-ant-test-limiter-0123456789',
      baseURL: server.url,
      tools: weatherTools,
      limiter,
      requestsPerMinute: R,
      retry: { baseDelayMs: 1 },
    })
    const tasks: TaskSpec[] = Array.from({ length: N }, (_, i) =>
      defineTask({
        id: `t${i}`,
        benchmark: 'anthropic-demo',
        prompt: `Weather ${i}?`,
        tools: [{ name: 'get_weather', description: '', inputSchema: {} }],
      }),
    )
    let finished = 0
    const trials = tasks.map((task) =>
      trial(runner, task).then((run) => {
        finished++
        return run
      }),
    )
    // Real HTTP, fake minutes: whenever every unfinished trial waits on the limiter, a minute may pass.
    for (let step = 0; step < 50 && finished < N; step++) {
      await until(() => finished === N || limiter.waiting === N - finished, 5_000, 'the trials to settle')
      if (finished === N) break
      clock.advanceToNextTimer()
    }
    const runs = await Promise.all(trials)

    expect(runs.map((r) => r.record.outcome)).toEqual(Array(N).fill('passed'))
    // 2 turns per trial, plus the retried 429.
    expect(sentAt).toHaveLength(2 * N + 1)
    expect(busiestWindow(sentAt)).toBe(R)
    expect(Math.max(...sentAt)).toBe(2 * RATE_WINDOW_MS)
    const retried = runs.flatMap((r) => modelCalls(r.events)).filter((e) => e.payload.status === 'error')
    expect(retried).toHaveLength(1)
    expect(server.problems).toEqual([])
  })
})
