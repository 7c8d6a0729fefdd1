import { AgentEvalOpsError } from '../../core/index.ts'

/** Time as the limiter sees it: injectable so a test can move a minute forward without waiting one. */
export interface LimiterClock {
  /** Milliseconds, monotonic. */
  now(): number
  /** Calls `fn` once after `ms`; returns what cancels it. */
  setTimer(fn: () => void, ms: number): () => void
}

export const realClock: LimiterClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms)
    return () => clearTimeout(timer)
  },
}

export const RATE_WINDOW_MS = 60_000

interface Waiter {
  resolve: () => void
  reject: (reason: unknown) => void
  signal: AbortSignal | undefined
  onAbort: () => void
}

/**
 * Keeps the requests started through it to at most `requestsPerMinute` in any 60-second window (a sliding log
 * of start times, so a burst at the end of one minute cannot add to a burst at the start of the next). Waiters
 * are served first come, first served, so one trial cannot starve the others; a wait ends with the signal's
 * reason as soon as the signal aborts.
 */
export class RateLimiter {
  private readonly starts: number[] = []
  private readonly queue: Waiter[] = []
  private cancelTimer: (() => void) | null = null
  private limit: number

  constructor(
    requestsPerMinute: number,
    private readonly clock: LimiterClock = realClock,
  ) {
    this.limit = checkRate(requestsPerMinute)
  }

  get requestsPerMinute(): number {
    return this.limit
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.length
  }

  /**
   * Lowers the limit (never raises it): two runners that share a limiter and disagree on the rate both stay
   * within the stricter one.
   */
  tighten(requestsPerMinute: number): void {
    this.limit = Math.min(this.limit, checkRate(requestsPerMinute))
  }

  /** Resolves when one more request may start, and counts it as started. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error)
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.queue.indexOf(waiter)
          if (at >= 0) this.queue.splice(at, 1)
          reject(signal?.reason as Error)
          // The head may have left: whoever is next might be served at a different time.
          this.schedule()
        },
      }
      signal?.addEventListener('abort', waiter.onAbort, { once: true })
      this.queue.push(waiter)
      this.pump()
    })
  }

  private pump(): void {
    const now = this.clock.now()
    this.prune(now)
    while (this.queue.length > 0 && this.starts.length < this.limit) {
      const waiter = this.queue.shift()!
      waiter.signal?.removeEventListener('abort', waiter.onAbort)
      this.starts.push(now)
      waiter.resolve()
    }
    this.schedule()
  }

  /** One timer, for the moment the oldest start leaves the window, and only while someone waits. */
  private schedule(): void {
    this.cancelTimer?.()
    this.cancelTimer = null
    if (this.queue.length === 0) return
    const now = this.clock.now()
    this.prune(now)
    // Past the limit (it was tightened), the slot frees when the start that brings the log under it leaves.
    const freeing = this.starts[this.starts.length - this.limit]
    const delay = freeing === undefined ? 0 : Math.max(0, freeing + RATE_WINDOW_MS - now)
    this.cancelTimer = this.clock.setTimer(() => {
      this.cancelTimer = null
      this.pump()
    }, delay)
  }

  private prune(now: number): void {
    while (this.starts.length > 0 && this.starts[0]! + RATE_WINDOW_MS <= now) this.starts.shift()
  }
}

function checkRate(requestsPerMinute: number): number {
  if (Number.isInteger(requestsPerMinute) && requestsPerMinute >= 1) return requestsPerMinute
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `requestsPerMinute must be an integer ≥ 1, got ${String(requestsPerMinute)}`,
  )
}

// Module state on purpose: every runner in this worker that talks to the same endpoint and model draws from the
// same budget, whichever eval file or benchmark made it.
const shared = new Map<string, RateLimiter>()

/**
 * The limiter this worker process shares for one API endpoint and model. A rate asked for by a later caller
 * that is stricter than the current one tightens it for everyone.
 */
export function sharedRateLimiter(baseURL: string, model: string, requestsPerMinute: number): RateLimiter {
  const key = `${baseURL.replace(/\/+$/, '')}|${model}`
  const existing = shared.get(key)
  if (existing) {
    existing.tighten(requestsPerMinute)
    return existing
  }
  const limiter = new RateLimiter(requestsPerMinute)
  shared.set(key, limiter)
  return limiter
}
