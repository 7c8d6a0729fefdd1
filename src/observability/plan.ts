import { SpanKind, SpanStatusCode, type AttributeValue, type Attributes } from '@opentelemetry/api'

/*
 * Spans are drawn after the run, from its records and trace events: first planned as plain data (names, times in
 * epoch milliseconds, attributes), then handed to the SDK in one pass. Planning apart from the SDK keeps the
 * timing rules testable and lets every parent's time span its children before anything is created.
 */

export interface PlannedEvent {
  name: string
  timeMs: number
  attributes: Attributes
}

export interface PlannedSpan {
  name: string
  kind: SpanKind
  startMs: number
  endMs: number
  attributes: Attributes
  status?: { code: SpanStatusCode; message?: string }
  events?: PlannedEvent[]
  children: PlannedSpan[]
}

export type MaybeAttributes = Record<string, AttributeValue | null | undefined>

/** Attributes without the absent ones: an attribute is either known or not written. */
export function attrs(values: MaybeAttributes): Attributes {
  const out: Attributes = {}
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue
    if (typeof value === 'number' && !Number.isFinite(value)) continue
    out[key] = value
  }
  return out
}

export function errorStatus(message: string | undefined): PlannedSpan['status'] {
  return message ? { code: SpanStatusCode.ERROR, message } : { code: SpanStatusCode.ERROR }
}

/** Earliest start and latest end over spans; null for none. */
export function extentOf(spans: readonly PlannedSpan[]): { startMs: number; endMs: number } | null {
  if (spans.length === 0) return null
  let startMs = Infinity
  let endMs = -Infinity
  for (const s of spans) {
    startMs = Math.min(startMs, s.startMs)
    endMs = Math.max(endMs, s.endMs, s.startMs)
  }
  return { startMs, endMs }
}

/** Epoch milliseconds of an ISO time, or null when it does not parse. */
export function epochMs(iso: string | undefined): number | null {
  if (iso === undefined) return null
  const ms = Date.parse(iso)
  return Number.isFinite(ms) ? ms : null
}

export { SpanKind, SpanStatusCode }
