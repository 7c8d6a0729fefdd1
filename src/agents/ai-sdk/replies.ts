import type { JsonObject } from '../../core/index.ts'
import { errorMessage } from '../../core/index.ts'
import type { ModelCallInfo } from '../callable/index.ts'
import { toJson } from '../callable/to-json.ts'
import type { GenerateResult, StreamPart, Usage } from './types.ts'

/** What a reply says of its call, for its `agent.model_call` event. */
export type ReplyFacts = Partial<
  Pick<
    ModelCallInfo,
    'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'text' | 'stopReason'
  >
>

/**
 * A generate result as a recording keeps it: what the SDK reads of it, as JSON. Transport details (the raw request
 * and response bodies, headers) are left out: they are not needed to replay the call, and may carry what should
 * not be committed.
 */
export function generateToJson(result: GenerateResult): JsonObject {
  const { content, finishReason, usage, providerMetadata, warnings, response } = result
  return asObject({
    content: content.map((part) =>
      part.type === 'file' && part.data instanceof Uint8Array
        ? { ...part, data: Buffer.from(part.data).toString('base64') }
        : part,
    ),
    finishReason,
    usage,
    providerMetadata,
    warnings,
    response:
      response === undefined
        ? undefined
        : { id: response.id, modelId: response.modelId, timestamp: response.timestamp?.toISOString() },
  })
}

/** A recorded generate result, back as the SDK expects it (dates as Dates). */
export function generateFromJson(recorded: JsonObject): GenerateResult {
  const result = structuredClone(recorded) as unknown as GenerateResult & {
    response?: { timestamp?: string | Date }
  }
  if (typeof result.response?.timestamp === 'string')
    result.response.timestamp = new Date(result.response.timestamp)
  return result
}

export function generateFacts(result: GenerateResult): ReplyFacts {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
  return {
    ...usageFacts(result.usage),
    stopReason: result.finishReason.raw ?? result.finishReason.unified,
    ...(text === '' ? {} : { text }),
  }
}

/** A streamed reply's parts as a recording keeps them: dates as ISO strings, errors as their messages. */
export function streamPartToJson(part: StreamPart): JsonObject {
  if (part.type === 'error') return { type: 'error', error: errorMessage(part.error) }
  if (part.type === 'response-metadata')
    return asObject({ ...part, timestamp: part.timestamp?.toISOString() })
  if (part.type === 'file' && part.data instanceof Uint8Array)
    return asObject({ ...part, data: Buffer.from(part.data).toString('base64') })
  return asObject(part)
}

export function streamPartFromJson(recorded: JsonObject): StreamPart {
  const part = structuredClone(recorded) as Record<string, unknown>
  if (part.type === 'error') return { type: 'error', error: new Error(String(part.error)) }
  if (part.type === 'response-metadata' && typeof part.timestamp === 'string')
    part.timestamp = new Date(part.timestamp)
  return part as StreamPart
}

export function streamFacts(parts: readonly StreamPart[]): ReplyFacts {
  let text = ''
  let facts: ReplyFacts = {}
  for (const part of parts) {
    if (part.type === 'text-delta') text += part.delta
    if (part.type === 'finish')
      facts = {
        ...usageFacts(part.usage),
        stopReason: part.finishReason.raw ?? part.finishReason.unified,
      }
  }
  return { ...facts, ...(text === '' ? {} : { text }) }
}

/**
 * Tokens as the trace counts them: uncached input apart from cache reads and writes (the SDK's `total` includes
 * both, so adding it to them would count them twice).
 */
function usageFacts(usage: Usage): ReplyFacts {
  const { total, noCache, cacheRead, cacheWrite } = usage.inputTokens
  const uncached = noCache ?? (total === undefined ? undefined : total - (cacheRead ?? 0) - (cacheWrite ?? 0))
  return definedOnly({
    inputTokens: uncached,
    outputTokens: usage.outputTokens.total,
    cacheReadTokens: cacheRead || undefined,
    cacheWriteTokens: cacheWrite || undefined,
  })
}

function asObject(value: unknown): JsonObject {
  return toJson(value, 'reply').value as JsonObject
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
