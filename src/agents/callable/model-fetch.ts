import type { JsonObject } from '../../core/index.ts'
import type { ModelCallInfo } from './types.ts'

/** An HTTP reply as a recording keeps it: enough for an SDK to read it again as if it came from the network. */
export interface RecordedReply {
  status: number
  contentType: string
  body: string
}

/**
 * The JSON body of a model request, when the request is one: a JSON object naming its `model` (as the Chat
 * Completions, Responses and Messages APIs all do). Anything else (a GET, a file upload) is not a model call.
 */
export async function modelRequestBody(
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<(JsonObject & { model: string }) | undefined> {
  let text: string | undefined
  const body = init?.body
  if (typeof body === 'string') text = body
  else if (body instanceof Uint8Array) text = new TextDecoder().decode(body)
  else if (body === undefined && input instanceof Request && input.body !== null)
    text = await input.clone().text()
  if (text === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined
  const model = (parsed as { model?: unknown }).model
  return typeof model === 'string' ? (parsed as JsonObject & { model: string }) : undefined
}

/** A reply as the SDK reads it: the recorded body, status and content type, whether fresh or replayed. */
export function toResponse(reply: RecordedReply): Response {
  return new Response(reply.body, { status: reply.status, headers: { 'content-type': reply.contentType } })
}

type Facts = Partial<
  Pick<ModelCallInfo, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'text' | 'stopReason'>
>

/**
 * What a reply says of its call: token usage and, for Chat Completions, the text and finish reason. Read from a
 * JSON body or from the events of a streamed (SSE) one, in the shapes of OpenAI's Chat Completions and Responses
 * APIs and Anthropic's Messages API. A reply in another shape yields nothing, and the call is recorded without it.
 */
export function replyFacts(reply: RecordedReply): Facts {
  const messages = reply.contentType.includes('text/event-stream')
    ? sseData(reply.body)
    : [parseObject(reply.body)].filter((m) => m !== undefined)
  const facts: Facts = {}
  let text = ''
  for (const message of messages) {
    Object.assign(facts, usageFacts(usageOf(message)))
    const choice = first(message.choices)
    const content = object(choice?.message)?.content ?? object(choice?.delta)?.content
    if (typeof content === 'string') text += content
    if (typeof choice?.finish_reason === 'string') facts.stopReason = choice.finish_reason
    const stop = object(message.delta)?.stop_reason ?? message.stop_reason
    if (typeof stop === 'string') facts.stopReason = stop
  }
  if (text !== '') facts.text = text
  return facts
}

/** The usage object of one message: top level (Chat, Messages), in `response` (Responses) or in `message`. */
function usageOf(message: Record<string, unknown>): Record<string, unknown> | undefined {
  return (
    object(message.usage) ?? object(object(message.response)?.usage) ?? object(object(message.message)?.usage)
  )
}

function usageFacts(usage: Record<string, unknown> | undefined): Facts {
  if (usage === undefined) return {}
  const facts: Facts = {}
  const int = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isFinite(v) ? v : undefined
  // OpenAI's prompt tokens include the cached ones; the trace counts them apart, as Anthropic reports them.
  const cached =
    int(object(usage.prompt_tokens_details)?.cached_tokens) ??
    int(object(usage.input_tokens_details)?.cached_tokens) ??
    0
  const openAiInput = int(usage.prompt_tokens)
  const input = openAiInput ?? int(usage.input_tokens)
  const isOpenAi = openAiInput !== undefined || usage.input_tokens_details !== undefined
  if (input !== undefined) facts.inputTokens = isOpenAi ? input - cached : input
  if (isOpenAi && cached > 0) facts.cacheReadTokens = cached
  const anthropicCached = int(usage.cache_read_input_tokens)
  if (!isOpenAi && anthropicCached !== undefined && anthropicCached > 0)
    facts.cacheReadTokens = anthropicCached
  const output = int(usage.completion_tokens) ?? int(usage.output_tokens)
  if (output !== undefined) facts.outputTokens = output
  return facts
}

function sseData(body: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  for (const line of body.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue
    const message = parseObject(line.slice(5).trim())
    if (message) out.push(message)
  }
  return out
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return object(JSON.parse(text))
  } catch {
    return undefined
  }
}

function object(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

function first(v: unknown): Record<string, unknown> | undefined {
  return Array.isArray(v) ? object(v[0]) : undefined
}
