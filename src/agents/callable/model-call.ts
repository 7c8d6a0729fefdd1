import type { EmitUsage, TracePayload } from '../../core/index.ts'
import { costOf } from '../../models/index.ts'
import type { ModelCallInfo } from './types.ts'

export interface ModelCallOutcome {
  status: 'ok' | 'error'
  error?: string
  /** Measured when the harness made the call itself (the wrapping form). */
  latencyMs?: number
}

export interface ModelCallEvent {
  payload: TracePayload<'agent.model_call'>
  usage: EmitUsage
  /** Set when the call used tokens of a model the price table lacks: it is recorded at $0. */
  unpriced: boolean
}

/**
 * The `agent.model_call` event for one call, and what it spent. Tokens are input + output + cache reads and
 * writes; the cost is the agent's own figure when it has one, else the table's list price, else 0 (a cost is
 * never guessed: the caller warns instead).
 */
export function modelCallEvent(info: ModelCallInfo, outcome: ModelCallOutcome): ModelCallEvent {
  const tokens =
    (info.inputTokens ?? 0) +
    (info.outputTokens ?? 0) +
    (info.cacheReadTokens ?? 0) +
    (info.cacheWriteTokens ?? 0)
  const priced =
    info.costUsd ??
    (tokens === 0
      ? 0
      : costOf(info.model, {
          input_tokens: info.inputTokens ?? 0,
          output_tokens: info.outputTokens ?? 0,
          cache_read_input_tokens: info.cacheReadTokens ?? 0,
          cache_creation_input_tokens: info.cacheWriteTokens ?? 0,
        }))
  const payload = definedOnly({
    model: info.model,
    inputTokens: info.inputTokens,
    outputTokens: info.outputTokens,
    // Named as the judge's evaluator.model_call events name them, so one trace reads the same throughout.
    cacheReadInputTokens: info.cacheReadTokens,
    cacheCreationInputTokens: info.cacheWriteTokens,
    stopReason: info.stopReason,
    text: info.text,
    status: outcome.status,
    attempt: info.attempt,
    error: outcome.error,
    latencyMs: outcome.latencyMs,
    costUnknown: priced === null ? true : undefined,
  })
  return { payload, usage: { tokens, costUsd: priced ?? 0 }, unpriced: priced === null }
}

/** Keeps only the facts of a report, so `{ inputTokens: undefined }` does not erase what `info` said. */
export function mergeInfo(info: ModelCallInfo, report: Partial<ModelCallInfo>): ModelCallInfo {
  return { ...info, ...definedOnly(report) }
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
