import type Anthropic from '@anthropic-ai/sdk'
import * as z from 'zod'
import { errorMessage } from '../core/index.ts'
import {
  attemptCalls,
  gatedCall,
  parseRetryAfter,
  type CallMessagesOptions,
  type Failure,
  type ModelTransport,
} from './attempts.ts'
import type { TokenUsage } from './pricing.ts'
import { loadAnthropicSdk } from './sdk.ts'

/**
 * A non-streaming Messages request. `temperature` is no longer in the SDK's types (the API deprecated it), but the
 * SDK sends any body field it is given, so a caller that wants it can still ask for it.
 */
export type MessagesRequest = Anthropic.MessageCreateParamsNonStreaming & { temperature?: number }
export type MessagesResponse = Anthropic.Message

// Enough of a Message to use it: a 200 whose body is HTML from a proxy, or JSON of another shape, is not one.
const MessageShape = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }),
})

/**
 * One Messages API call, retried by us rather than by the SDK so each attempt can be seen (and costed) in the
 * trace: 429, 529, other 5xx, connection failures and unreadable bodies are retried with exponential backoff (or
 * the server's `retry-after`); any other 4xx is not. Exhausted or not retryable → INFRA_FAILURE; aborted →
 * RUN_ABORTED.
 */
export async function callMessages(
  client: Anthropic,
  request: MessagesRequest,
  options: CallMessagesOptions = {},
): Promise<MessagesResponse> {
  return gatedCall(request, options, async (attemptOptions) =>
    attemptCalls(messagesTransport(client, request, await loadAnthropicSdk()), attemptOptions),
  )
}

function messagesTransport(
  client: Anthropic,
  request: MessagesRequest,
  sdk: typeof import('@anthropic-ai/sdk'),
): ModelTransport<MessagesResponse> {
  return {
    model: request.model,
    // maxRetries 0 per request: a caller's client may have the SDK's default of 2, which would hide attempts.
    send: (signal, timeoutMs) =>
      client.messages.create(request, {
        maxRetries: 0,
        ...(signal ? { signal } : {}),
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      }),
    accept: (raw) => {
      if (!MessageShape.safeParse(raw).success) return null
      const message = raw as MessagesResponse
      return { response: message, usage: usageOf(message.usage) }
    },
    isAbort: (e) => e instanceof sdk.APIUserAbortError,
    classify: (e) => classify(e, sdk),
    secrets: [client.apiKey, client.authToken].filter((s): s is string => typeof s === 'string'),
    hint: (status) => {
      if (status === 401 || status === 403) return 'Check the API key (ANTHROPIC_API_KEY).'
      if (status === 400 || status === 404) return 'Check the model id and the request parameters.'
      return undefined
    },
  }
}

function classify(e: unknown, sdk: typeof import('@anthropic-ai/sdk')): Failure {
  if (e instanceof sdk.APIConnectionError)
    return { message: `connection failed: ${e.message}`, retryable: true }
  if (e instanceof sdk.APIError && typeof e.status === 'number') {
    const status = e.status
    const retryable = status === 429 || status >= 500
    // `instanceof` leaves the class's type parameters as any; the headers are a fetch Headers when present.
    const headers = e.headers as Headers | undefined
    const retryAfterMs = headers ? parseRetryAfter(headers) : undefined
    const detail = e.apiMessage ?? e.message
    return {
      message: `HTTP ${status}${e.type ? ` ${e.type}` : ''}: ${detail}`,
      retryable,
      httpStatus: status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    }
  }
  // The SDK reads a JSON content type with response.json(): a body that is not JSON surfaces as a SyntaxError.
  if (e instanceof SyntaxError) return { message: `malformed response body: ${e.message}`, retryable: true }
  return { message: errorMessage(e), retryable: false }
}

/** The token counts of a Messages API reply, as the price table reads them. */
export function usageOf(usage: Anthropic.Usage): TokenUsage {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
  }
}
