import { canonicalJson, sha256, type JsonObject } from '../core/index.ts'

/**
 * What makes two model requests the same request: the model, what it is told and asked, its tools and the sampling
 * parameters, under Anthropic's and OpenAI's names (fields neither API has are absent, so adding a name changes no
 * existing key). Transport details (stream, metadata, headers, timeouts) are left out, so a recording survives them.
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
  // OpenAI's names for the same things (Chat Completions and Responses), so an OpenAI request keys by its content.
  'instructions',
  'input',
  'max_completion_tokens',
  'max_output_tokens',
  'response_format',
  'text',
  'reasoning',
  'reasoning_effort',
  'stop',
  'seed',
  'n',
  'frequency_penalty',
  'presence_penalty',
  'parallel_tool_calls',
  // The AI SDK's per-provider settings (reasoning effort, caching…), as traced() models record them.
  'providerOptions',
  // An MCP server's method, tool and arguments, as mcpTools() records its tools' lists and results.
  'mcp',
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
