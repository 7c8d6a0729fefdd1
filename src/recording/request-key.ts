import { canonicalJson, sha256, type JsonObject } from '../core/index.ts'

/**
 * What makes two model requests the same request: the model, what it is told and asked, its tools and the sampling
 * parameters. Transport details (stream, metadata, headers, timeouts) are left out, so a recording survives them.
 */
const REQUEST_FIELDS = [
  'model',
  'system',
  'messages',
  'tools',
  'tool_choice',
  'max_tokens',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'thinking',
] as const

export function normalizeRequest(request: JsonObject): JsonObject {
  const normalized: JsonObject = {}
  for (const field of REQUEST_FIELDS) {
    const value = request[field]
    if (value !== undefined && value !== null) normalized[field] = value
  }
  return normalized
}

/** sha256 of the normalised request, key order aside. */
export function requestKey(normalized: JsonObject): string {
  return sha256(canonicalJson(normalized))
}
