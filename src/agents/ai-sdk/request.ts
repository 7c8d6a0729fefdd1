import type { JsonObject } from '../../core/index.ts'
import { toJson } from '../callable/to-json.ts'
import type { CallOptions, ProviderModel } from './types.ts'

/**
 * The request a model call is recorded under: what the model is told and asked, in the recording key's field
 * names (src/recording/request-key.ts), so a changed prompt, tool result or setting is a different call. The abort
 * signal and headers are transport, left out like a raw request's; provider options shape the reply, so they count.
 */
export function requestOf(model: ProviderModel, params: CallOptions): JsonObject {
  const fields: Record<string, unknown> = {
    model: model.modelId,
    messages: params.prompt,
    tools: params.tools,
    tool_choice: params.toolChoice,
    max_tokens: params.maxOutputTokens,
    temperature: params.temperature,
    top_p: params.topP,
    top_k: params.topK,
    stop_sequences: params.stopSequences,
    seed: params.seed,
    response_format: params.responseFormat,
    frequency_penalty: params.frequencyPenalty,
    presence_penalty: params.presencePenalty,
    providerOptions: params.providerOptions,
  }
  const request: JsonObject = {}
  for (const [key, value] of Object.entries(fields)) {
    // Images and files in a prompt are bytes: toJson makes them plain numbers, which key them as well as any.
    if (value !== undefined) request[key] = toJson(value, key).value
  }
  return request
}
