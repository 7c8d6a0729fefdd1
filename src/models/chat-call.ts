import type OpenAI from 'openai'
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
import { loadOpenAISdk } from './sdk.ts'

/** A non-streaming Chat Completions request, as OpenAI and the gateways that copy its API accept it. */
export type ChatRequest = OpenAI.ChatCompletionCreateParamsNonStreaming
export type ChatResponse = OpenAI.ChatCompletion

// Enough of a completion to use it; `usage` is optional because some OpenAI-compatible servers leave it out.
const CompletionShape = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z
    .looseObject({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().optional() }).nullish(),
    })
    .nullish(),
})

/**
 * One Chat Completions call, with the attempts, retries, recording and redaction of callMessages: 429, 5xx,
 * connection failures and unreadable bodies are retried (honouring `retry-after`), any other 4xx is not.
 */
export async function callChatCompletions(
  client: OpenAI,
  request: ChatRequest,
  options: CallMessagesOptions = {},
): Promise<ChatResponse> {
  return gatedCall(request, options, async (attemptOptions) =>
    attemptCalls(chatTransport(client, request, await loadOpenAISdk()), attemptOptions),
  )
}

function chatTransport(
  client: OpenAI,
  request: ChatRequest,
  sdk: typeof import('openai'),
): ModelTransport<ChatResponse> {
  return {
    model: request.model,
    send: (signal, timeoutMs) =>
      client.chat.completions.create(request, {
        maxRetries: 0,
        ...(signal ? { signal } : {}),
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      }),
    accept: (raw) => {
      const parsed = CompletionShape.safeParse(raw)
      if (!parsed.success) return null
      const usage = parsed.data.usage ? chatUsageOf(parsed.data.usage) : undefined
      return { response: raw as ChatResponse, ...(usage ? { usage } : {}) }
    },
    isAbort: (e) => e instanceof sdk.APIUserAbortError,
    classify: (e) => classify(e, sdk),
    secrets: typeof client.apiKey === 'string' ? [client.apiKey] : [],
    hint: (status) => {
      if (status === 401 || status === 403)
        return 'Check the API key (LLM_API_KEY in monitor mode, else OPENAI_API_KEY or the apiKey option).'
      if (status === 400 || status === 404)
        return 'Check the model id, the gateway base URL (LLM_API_BASE) and the request parameters.'
      return undefined
    },
  }
}

function classify(e: unknown, sdk: typeof import('openai')): Failure {
  if (e instanceof sdk.APIConnectionError)
    return { message: `connection failed: ${e.message}`, retryable: true }
  if (e instanceof sdk.APIError && typeof e.status === 'number') {
    const status = e.status
    const retryable = status === 429 || status >= 500
    const headers = e.headers as Headers | undefined
    const retryAfterMs = headers ? parseRetryAfter(headers) : undefined
    return {
      message: `HTTP ${status}${e.type ? ` ${e.type}` : ''}: ${e.message}`,
      retryable,
      httpStatus: status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    }
  }
  if (e instanceof SyntaxError) return { message: `malformed response body: ${e.message}`, retryable: true }
  return { message: errorMessage(e), retryable: false }
}

/**
 * Chat Completions usage in the price table's terms: OpenAI counts cached prompt tokens inside `prompt_tokens`,
 * the table prices them apart, so they are moved to the cache-read count. OpenAI bills no cache writes.
 */
export function chatUsageOf(usage: {
  prompt_tokens: number
  completion_tokens: number
  prompt_tokens_details?: { cached_tokens?: number | undefined } | null | undefined
}): TokenUsage {
  const cached = Math.min(usage.prompt_tokens, usage.prompt_tokens_details?.cached_tokens ?? 0)
  return {
    input_tokens: usage.prompt_tokens - cached,
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: cached,
  }
}
