import { AgentEvalOpsError, errorMessage } from '../../core/index.ts'
import { abortableSleep, parseRetryAfter, redactSecrets } from '../../models/index.ts'

/** How the seed's HTTP services are retried: 5xx, 429 and network errors; any other 4xx is the caller's to judge. */
export interface RetryOptions {
  /** HTTP attempts in all, the first included (default 3). */
  attempts?: number
  /** The first wait, doubled on each retry (default 2 s). */
  baseDelayMs?: number
  /** No wait is longer, whatever `retry-after` asks (default 30 s). */
  maxDelayMs?: number
  /** Per attempt, the body read included (default 30 s, as the seed's job). */
  timeoutMs?: number
  /** Waits between attempts; must reject promptly when `signal` aborts. Injectable so tests need not wait. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

export const AMP_RETRY_ATTEMPTS = 3
export const AMP_RETRY_BASE_DELAY_MS = 2_000
export const AMP_RETRY_MAX_DELAY_MS = 30_000
export const AMP_REQUEST_TIMEOUT_MS = 30_000

/** One request of a seed service, as fetchWithRetry sends it. */
export interface RetriedRequest {
  /** For messages: e.g. `publisher http://host/api/v1/…`, never a credential. */
  what: string
  url: string
  /** Called per attempt, so a retry after a long wait carries a fresh token. */
  init: () => Promise<RequestInit>
  /** Redacted from every message, besides the Authorization header's value. */
  secrets?: readonly string[]
  /**
   * Called on a 401: true when the credential sent was dropped, so one more attempt with a fresh one is worth it
   * (a token revoked or rotated before its expiry). A second 401 is the caller's to report.
   */
  reauthorize?: () => boolean
  /**
   * A streamed body's own failure, once it had one (its source could not be read, a score did not fit): a failed
   * attempt with one is that failure, thrown as it is and never retried, as sending it again would fail alike.
   */
  bodyFailure?: () => Error | null
}

/**
 * A response we stopped at: a 2xx, or a status that retrying would not change (a 4xx other than 429), whose body
 * has the request's credentials redacted.
 */
export interface HttpAnswer {
  status: number
  headers: Headers
  body: string
}

/** Enough of a body to say what the server objected to. */
const BODY_SNIPPET = 300

/**
 * Sends one request, retried with exponential backoff (or the server's `retry-after`, capped) while the answer is
 * a 5xx, a 429 or no answer at all. Throws INFRA_FAILURE once the attempts are spent (the message names `what`,
 * never a credential), RUN_ABORTED when `signal` aborts.
 */
export async function fetchWithRetry(
  request: RetriedRequest,
  signal: AbortSignal,
  options: RetryOptions = {},
): Promise<HttpAnswer> {
  const { what, url } = request
  const attempts = options.attempts ?? AMP_RETRY_ATTEMPTS
  const sleep = options.sleep ?? abortableSleep
  const timeoutMs = options.timeoutMs ?? AMP_REQUEST_TIMEOUT_MS
  let reauthorized = false
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw aborted(what, signal.reason)
    const init = await request.init()
    const secrets = [...(request.secrets ?? []), ...credentialsOf(init)]
    const redact = (text: string): string => redactSecrets(text, secrets)
    let failure: string
    let retryAfterMs: number | undefined
    try {
      const response = await fetch(url, {
        ...init,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      })
      const body = await response.text()
      if (response.status === 401 && !reauthorized && request.reauthorize?.() === true) {
        // Not a failure of the service: the same attempt again, with the fresh credential.
        reauthorized = true
        attempt--
        continue
      }
      if (response.status !== 429 && response.status < 500) {
        // A refusal's body ends up in messages; a success's is the caller's data (a token response, say).
        return { status: response.status, headers: response.headers, body: response.ok ? body : redact(body) }
      }
      failure = `HTTP ${response.status}${snippet(body)}`
      retryAfterMs = parseRetryAfter(response.headers)
    } catch (e) {
      if (signal.aborted) throw aborted(what, signal.reason)
      const own = request.bodyFailure?.()
      if (own) throw own
      failure = networkError(e, timeoutMs)
    }
    if (attempt >= attempts) {
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `${what} failed after ${attempt} attempt(s): ${redact(failure)}.`,
        { hint: 'Check that the service is up and reachable from here, then run the job again.' },
      )
    }
    try {
      await sleep(backoffMs(attempt, retryAfterMs, options), signal)
    } catch (e) {
      throw aborted(what, e)
    }
  }
}

/** The wait before attempt `attempt + 1`: the server's when it asked, else base × 2^(attempt − 1); capped. */
export function backoffMs(
  attempt: number,
  retryAfterMs: number | undefined,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'> = {},
): number {
  const cap = options.maxDelayMs ?? AMP_RETRY_MAX_DELAY_MS
  if (retryAfterMs !== undefined) return Math.min(cap, retryAfterMs)
  return Math.min(cap, (options.baseDelayMs ?? AMP_RETRY_BASE_DELAY_MS) * 2 ** (attempt - 1))
}

/** A URL without credentials or query: safe to print. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

export function snippet(body: string): string {
  const text = body.trim().replace(/\s+/g, ' ')
  return text ? `: ${text.slice(0, BODY_SNIPPET)}` : ''
}

/** The Authorization header's value and its credential part, so an echoing server cannot leak them into a log. */
function credentialsOf(request: RequestInit): string[] {
  const value = new Headers(request.headers).get('authorization')
  if (!value) return []
  const credential = value.replace(/^\S+\s+/, '')
  return [value, credential]
}

function networkError(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`
  const cause = e instanceof Error ? (e.cause as { code?: unknown } | undefined) : undefined
  if (cause && typeof cause.code === 'string') return `connection failed (${cause.code})`
  return `connection failed (${errorMessage(e)})`
}

function aborted(what: string, cause: unknown): AgentEvalOpsError {
  return new AgentEvalOpsError('RUN_ABORTED', `${what} aborted`, { cause })
}
