import type { JsonObject, JsonValue, RunContext } from '../../../core/index.ts'
import { costOf, PRICES_AS_OF, totalTokens, type TokenUsage } from '../../../models/index.ts'
import type { RunNotes } from '../notes.ts'

/** What the output stream said about the run as a whole. */
export interface FormatResult {
  /** The answer to return when the command exits 0. */
  finalAnswer: string | null
  /** Set when the stream itself reports a failure (e.g. stream-json's `"is_error": true`). */
  error?: string
  success?: boolean
}

/** One run's reader of stdout JSON lines. Its methods throw whatever ctx.emit throws (a limit), and nothing else. */
export interface LineFormat {
  /** One parsed JSON line (any JSON value: checking its shape is the format's job). */
  line(value: JsonValue): void
  /** stdout has ended normally: emit what is still buffered. */
  end(): void
  result(): FormatResult
}

export interface FormatContext {
  ctx: RunContext
  notes: RunNotes
}

export type FormatFactory = (context: FormatContext) => LineFormat

export function isRecord(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function stringOr<T>(value: JsonValue | undefined, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback
}

/** A token count as the agent reported it; anything that is not a whole number ≥ 0 counts as none. */
export function tokenCount(value: JsonValue | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0
}

export { totalTokens }

/** List price of a call; a model the price table lacks costs 0, with one warning per model. */
export function priceCall(
  model: string | undefined,
  usage: TokenUsage,
  notes: RunNotes,
  fallbackNote = '',
): number {
  if (model === undefined) {
    if (totalTokens(usage) > 0)
      notes.once('price:no-model', `a model call with tokens but no model was counted at $0${fallbackNote}`)
    return 0
  }
  const cost = costOf(model, usage)
  if (cost !== null) return cost
  notes.once(
    `price:${model}`,
    `model ${JSON.stringify(model)} is not in the price table of ${PRICES_AS_OF}: its calls are counted at $0${fallbackNote}`,
  )
  return 0
}

/** Drops undefined values, so payloads hold only what the agent said. */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
