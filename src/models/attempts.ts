import {
  AgentEvalOpsError,
  errorMessage,
  isAgentEvalOpsError,
  type JsonObject,
  type JsonValue,
  type ModelCallGate,
} from '../core/index.ts'
import type { TokenUsage } from './pricing.ts'

/** How one HTTP attempt ended: what a caller needs to record it as a trace event. */
export interface AttemptInfo {
  /** From 1, per call. */
  attempt: number
  status: 'ok' | 'error'
  latencyMs: number
  /** On `ok`: the tokens the API billed (absent when the server did not say). */
  usage?: TokenUsage
  /** On `error`: what went wrong, with any credential of the client redacted. */
  error?: string
  /** On `error`, when the server answered at all. */
  httpStatus?: number
  /** On a retried `error`: how long we wait before the next attempt. */
  retryInMs?: number
}

export interface CallMessagesOptions {
  signal?: AbortSignal | undefined
  /** HTTP attempts in all, the first included (default 3). */
  maxAttempts?: number | undefined
  onAttempt?: ((info: AttemptInfo) => void) | undefined
  /** Waits between attempts; must reject promptly when `signal` aborts. Injectable so tests need not wait. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined
  /** First backoff delay, doubled on each retry (default 500 ms). */
  baseDelayMs?: number | undefined
  /** No wait is longer, whatever `retry-after` asks (default 30 s). */
  maxDelayMs?: number | undefined
  /** Per attempt; the SDK's own default (10 min) otherwise. */
  timeoutMs?: number | undefined
  /**
   * The trial's model-call gate (RunContext.modelCalls): the call is recorded, or answered from a recording with
   * its attempts replayed through `onAttempt`, so a replayed trace shows the same retries.
   */
  gate?: ModelCallGate | undefined
}

export const DEFAULT_MAX_ATTEMPTS = 3
export const DEFAULT_BASE_DELAY_MS = 500
export const DEFAULT_MAX_DELAY_MS = 30_000

/** Why an attempt failed, as the provider's error says, and whether another attempt may do better. */
export interface Failure {
  message: string
  retryable: boolean
  httpStatus?: number
  retryAfterMs?: number
}

/** What the retry loop needs of one provider's API: how to send, and how to read what came back. */
export interface ModelTransport<R> {
  model: string
  /** One HTTP request, with the SDK's own retries off. */
  send(signal: AbortSignal | undefined, timeoutMs: number | undefined): Promise<unknown>
  /** The response and its billed usage, or null when the body is not a response of this API. */
  accept(raw: unknown): { response: R; usage?: TokenUsage } | null
  isAbort(error: unknown): boolean
  classify(error: unknown): Failure
  /** Credentials of the client, redacted from every message. */
  secrets: readonly string[]
  /** What to check after a final failure with this status. */
  hint(status: number | undefined): string | undefined
}

/**
 * A model call through the gate: recorded, or answered from a recording with its attempts replayed through
 * `onAttempt`, so a replayed trace shows the same retries. Without a gate the call is simply made.
 */
export async function gatedCall<R>(
  request: object,
  options: CallMessagesOptions,
  attempt: (options: CallMessagesOptions) => Promise<R>,
): Promise<R> {
  const { gate } = options
  if (gate === undefined) return attempt(options)
  const attempts: AttemptInfo[] = []
  const exchange = await gate.exchange(JSON.parse(JSON.stringify(request)) as JsonObject, async () => {
    const onAttempt = (info: AttemptInfo): void => {
      attempts.push(info)
      options.onAttempt?.(info)
    }
    try {
      const response = await attempt({ ...options, onAttempt })
      return { response: response as unknown as JsonValue, attempts: attempts as unknown as JsonValue[] }
    } catch (e) {
      // A call that failed for good is recorded too, so its replay fails the same way; an abort is not a result.
      if (!isAgentEvalOpsError(e, 'INFRA_FAILURE')) throw e
      return { response: null, attempts: attempts as unknown as JsonValue[], error: e.message }
    }
  })
  if (exchange.replayed)
    for (const info of exchange.attempts) options.onAttempt?.(info as unknown as AttemptInfo)
  if (exchange.error !== undefined) throw new AgentEvalOpsError('INFRA_FAILURE', exchange.error)
  return exchange.response as unknown as R
}

/**
 * The attempts of one model call, retried by us rather than by the SDK so each attempt can be seen (and costed)
 * in the trace: what the transport calls retryable (rate limits, overload, 5xx, connection failures, unreadable
 * bodies) is retried with exponential backoff or the server's `retry-after`; anything else is not. Exhausted or
 * not retryable → INFRA_FAILURE; aborted → RUN_ABORTED.
 */
export async function attemptCalls<R>(
  transport: ModelTransport<R>,
  options: CallMessagesOptions,
): Promise<R> {
  const { signal, onAttempt } = options
  const { model } = transport
  const maxAttempts = positiveInt('maxAttempts', options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)
  const sleep = options.sleep ?? abortableSleep
  const redact = (text: string): string => redactSecrets(text, transport.secrets)

  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal, model)
    const started = performance.now()
    const latencyMs = (): number => Math.round((performance.now() - started) * 1000) / 1000
    let raw: unknown
    let thrown: { error: unknown } | undefined
    try {
      raw = await transport.send(signal, options.timeoutMs)
    } catch (e) {
      thrown = { error: e }
    }
    if (thrown && (signal?.aborted || transport.isAbort(thrown.error))) {
      onAttempt?.({ attempt, status: 'error', latencyMs: latencyMs(), error: 'aborted' })
      throw aborted(model, thrown.error)
    }
    const accepted = thrown ? null : transport.accept(raw)
    if (accepted) {
      onAttempt?.({
        attempt,
        status: 'ok',
        latencyMs: latencyMs(),
        ...(accepted.usage ? { usage: accepted.usage } : {}),
      })
      return accepted.response
    }
    const failure: Failure = thrown
      ? transport.classify(thrown.error)
      : { message: `malformed response body: ${describeBody(raw)}`, retryable: true }

    const last = attempt >= maxAttempts || !failure.retryable
    const retryInMs = last ? undefined : retryDelayMs(attempt, failure.retryAfterMs, options)
    const error = redact(failure.message)
    onAttempt?.({
      attempt,
      status: 'error',
      latencyMs: latencyMs(),
      error,
      ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }),
      ...(retryInMs === undefined ? {} : { retryInMs }),
    })
    if (retryInMs === undefined) {
      const why = failure.retryable ? `failed after ${attempt} attempt(s)` : 'failed (not retryable)'
      // The SDK's error is kept for debugging, unless its text holds a credential (a server echoing the key).
      const cause =
        thrown && redact(errorMessage(thrown.error)) === errorMessage(thrown.error) ? thrown.error : undefined
      const hint = transport.hint(failure.httpStatus)
      throw new AgentEvalOpsError('INFRA_FAILURE', `model call to ${model} ${why}: ${error}`, {
        cause,
        ...(hint === undefined ? {} : { hint }),
      })
    }
    try {
      await sleep(retryInMs, signal)
    } catch (e) {
      throw aborted(model, e)
    }
  }
}

/**
 * The server's requested wait in ms: `retry-after-ms`, else `retry-after` as seconds or an HTTP date. Undefined
 * when absent or unreadable (the caller then backs off on its own).
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms)
  const value = headers.get('retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000
  // An HTTP date names its month and zone; V8's Date.parse would also read "-3" or "2026" as dates.
  if (!/[a-z]/i.test(value)) return undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The wait before attempt `attempt + 1`: the server's, else exponential backoff with jitter; capped either way. */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  options: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs'> = {},
): number {
  const cap = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS
  if (retryAfterMs !== undefined) return Math.min(cap, retryAfterMs)
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS
  // Jitter keeps parallel workers that failed together from retrying in lockstep.
  const backoff = Math.min(cap, base * 2 ** (attempt - 1))
  return Math.round(backoff * (1 - Math.random() * 0.25))
}

/** Replaces every occurrence of each secret (of a plausible length) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    // Very short strings would redact ordinary words; no real credential is that short.
    if (typeof secret === 'string' && secret.length >= 8) out = out.split(secret).join('[redacted]')
  }
  return out
}

function describeBody(raw: unknown): string {
  if (typeof raw === 'string') return `not JSON (${JSON.stringify(raw.slice(0, 80))})`
  return 'JSON that is not a response of this API'
}

function throwIfAborted(signal: AbortSignal | undefined, model: string): void {
  if (signal?.aborted) throw aborted(model, signal.reason)
}

function aborted(model: string, cause: unknown): AgentEvalOpsError {
  return new AgentEvalOpsError('RUN_ABORTED', `model call to ${model} aborted`, { cause })
}

function positiveInt(name: string, value: number): number {
  if (Number.isInteger(value) && value >= 1) return value
  throw new AgentEvalOpsError('CONFIG_INVALID', `model call: ${name} must be an integer ≥ 1, got ${value}`)
}

/** setTimeout that rejects as soon as `signal` aborts, so a cancelled run does not sit out a 30 s backoff. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error)
      return
    }
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal?.reason as Error)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
