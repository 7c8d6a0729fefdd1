import { AgentEvalOpsError, errorMessage } from '../../core/index.ts'
import { abortableSleep, parseRetryAfter } from '../../models/index.ts'

/*
 * HTTP for the Langfuse source and publisher: what is worth retrying (5xx, 429, a network error) is retried with
 * exponential backoff, honouring retry-after; every other answer goes back to the caller, which knows what a 4xx
 * means for its endpoint. Messages name the endpoint, never a credential.
 */

export interface HttpRetryOptions {
  /** Tries in all, including the first. Default 3. */
  attempts?: number
  /** The wait before the second try, doubled for each next one. Default 2000 ms. */
  baseDelayMs?: number
  /** No wait is longer, whatever retry-after says. Default 30 s. */
  maxDelayMs?: number
}

export const DEFAULT_HTTP_ATTEMPTS = 3
export const DEFAULT_HTTP_BASE_DELAY_MS = 2000
const DEFAULT_HTTP_MAX_DELAY_MS = 30_000

/**
 * The first answer that is not worth retrying, or throws INFRA_FAILURE (naming `what`) once the tries are spent.
 * Aborting `signal` ends the wait and the request at once (RUN_ABORTED).
 */
export async function fetchWithRetry(
  url: string,
  init: RequestInit,
  what: string,
  signal: AbortSignal,
  retry: HttpRetryOptions = {},
): Promise<Response> {
  const attempts = Math.max(1, Math.floor(retry.attempts ?? DEFAULT_HTTP_ATTEMPTS))
  const base = retry.baseDelayMs ?? DEFAULT_HTTP_BASE_DELAY_MS
  const cap = retry.maxDelayMs ?? DEFAULT_HTTP_MAX_DELAY_MS
  let last = ''
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (signal.aborted) throw aborted(what, signal.reason)
    let waitMs: number | undefined
    try {
      const response = await fetch(url, { ...init, signal })
      if (response.status < 500 && response.status !== 429) return response
      last = `HTTP ${response.status}`
      waitMs = parseRetryAfter(response.headers)
      await response.body?.cancel()
    } catch (e) {
      if (signal.aborted) throw aborted(what, signal.reason)
      last = errorMessage(e)
    }
    if (attempt === attempts) break
    const backoff = base * 2 ** (attempt - 1)
    await abortableSleep(Math.min(cap, waitMs ?? backoff), signal).catch((e: unknown) => {
      throw aborted(what, e)
    })
  }
  throw new AgentEvalOpsError('INFRA_FAILURE', `${what} failed after ${attempts} tries (last: ${last})`, {
    hint: 'check that the endpoint is up and reachable; rerun once it is',
  })
}

/** The start of a response body, for an error message (bounded, one line). */
export async function bodyExcerpt(response: Response): Promise<string> {
  const text = await response.text().catch(() => '')
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

function aborted(what: string, cause: unknown): AgentEvalOpsError {
  return new AgentEvalOpsError('RUN_ABORTED', `${what} aborted`, { cause })
}
