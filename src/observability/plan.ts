/*
 * Spans are drawn from the run's records and trace events: first planned as plain data (names, times in epoch
 * milliseconds, attributes), then written as OTLP JSON (otlp-encode.ts). Planning apart from the encoding keeps the
 * timing rules testable and lets every parent's time span its children before anything is written.
 */

/**
 * Span kinds and status codes with the OpenTelemetry API's values (the API is not imported: the span code needs
 * no OpenTelemetry package at run time). OTLP's kind is the API's plus one; its status codes are the API's.
 */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind]
export const SpanStatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const
export type SpanStatusCode = (typeof SpanStatusCode)[keyof typeof SpanStatusCode]

/** An attribute value as OpenTelemetry allows it: a primitive or a homogeneous array of them. */
export type AttributeValue =
  | string
  | number
  | boolean
  | (string | null | undefined)[]
  | (number | null | undefined)[]
  | (boolean | null | undefined)[]
export type Attributes = Record<string, AttributeValue | undefined>

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
