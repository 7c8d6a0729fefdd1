import type { Redactor } from '../core/index.ts'

/**
 * What a span may say about the conversation. Message content (model text, tool arguments and results, the final
 * answer) is written only when `capture` is on, and then only after `redactor` has replaced every secret it
 * knows; free text that is not content (an error message, an evaluator's explanation) is redacted too.
 */
export interface ContentPolicy {
  capture: boolean
  redactor: Redactor
}

/**
 * `gen_ai.output.messages` for one assistant reply, in the conventions' JSON shape (role, parts, finish_reason).
 * The finish reason is the provider's own word (`end_turn`, `tool_use`…), as `gen_ai.response.finish_reasons`.
 */
export function outputMessages(
  policy: ContentPolicy,
  text: string,
  finishReason: string | undefined,
): string {
  return JSON.stringify([
    {
      role: 'assistant',
      parts: [{ type: 'text', content: policy.redactor.string(text) }],
      finish_reason: finishReason ?? 'stop',
    },
  ])
}

/** A JSON value (tool arguments, a tool result) as the attribute text the conventions ask for. */
export function jsonContent(policy: ContentPolicy, value: unknown): string {
  const redacted = policy.redactor.json(value, { wholeValues: true })
  return typeof redacted === 'string' ? redacted : (JSON.stringify(redacted) ?? 'null')
}
