import type { JsonObject } from '../../core/index.ts'
import { loadAi } from './load-ai.ts'

/**
 * A provider's refusal (an HTTP error, a connection that failed) as a recording keeps it: enough to raise the same
 * APICallError on replay, so the SDK retries (or gives up) where the recorded run did. The URL loses its query,
 * where some providers put a key; the request and response bodies are not kept.
 */
export interface RecordedFailure extends JsonObject {
  message: string
  url: string
  isRetryable: boolean
  statusCode: number | null
}

/** The failure of a call the SDK made, when it is one a recording should keep (a provider's APICallError). */
export async function recordableFailure(error: unknown): Promise<RecordedFailure | undefined> {
  const { APICallError } = await loadAi()
  if (!APICallError.isInstance(error)) return undefined
  return {
    message: error.message,
    url: error.url.split('?')[0] ?? '',
    isRetryable: error.isRetryable,
    statusCode: error.statusCode ?? null,
  }
}

export async function raiseRecorded(failure: RecordedFailure): Promise<never> {
  const { APICallError } = await loadAi()
  throw new APICallError({
    message: failure.message,
    url: failure.url,
    requestBodyValues: {},
    isRetryable: failure.isRetryable,
    ...(failure.statusCode === null ? {} : { statusCode: failure.statusCode }),
  })
}

export function describeFailure(failure: RecordedFailure): string {
  return failure.statusCode === null ? failure.message : `HTTP ${failure.statusCode}: ${failure.message}`
}
