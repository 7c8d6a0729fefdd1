import { randomFillSync } from 'node:crypto'
import type { AttributeValue, Attributes, PlannedSpan } from './plan.ts'

/*
 * Planned spans written straight as OTLP JSON, the encoding of OpenTelemetry's JSON exporter
 * (@opentelemetry/otlp-transformer's JsonTraceSerializer): the same keys in the same order, 64-bit times as decimal
 * strings, ids as hex, kinds offset by one. The SDK is not needed to serialise spans we plan ourselves; a parity
 * test (test/observability/span-parity.test.ts) holds this output equal to the SDK's for real runs.
 */

/** Where span and trace ids come from: random by default; a test passes its own to compare outputs exactly. */
export interface SpanIds {
  /** 32 lowercase hex characters, not all zero. */
  traceId(): string
  /** 16 lowercase hex characters, not all zero. */
  spanId(): string
}

/**
 * OpenTelemetry's span limits, as its SDK reads them from the environment (see spanLimitsFromEnv): attributes past
 * the count limit are dropped (and counted), string values cut to the length limit, the oldest events dropped past
 * the event limit.
 */
export interface SpanLimits {
  attributeCount: number
  valueLength: number
  eventCount: number
  attributesPerEvent: number
}

/** What every span of a run shares when it is encoded. */
export interface EncodeContext {
  traceId: string
  ids: SpanIds
  limits: SpanLimits
}

/** An ExportTraceServiceRequest's resource and instrumentation scope, encoded once per run. */
export interface OtlpEnvelope {
  resource: Readonly<Record<string, string>>
  scope: { name: string; version: string }
}

/** One encoded span as the JSON exporter writes it (absent optional fields are left out of the JSON). */
interface EncodedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: EncodedKeyValue[]
  droppedAttributesCount: number
  events: EncodedEvent[]
  droppedEventsCount: number
  status: { code: number; message: string | undefined }
  links: []
  droppedLinksCount: 0
  flags: number
}

interface EncodedEvent {
  attributes: EncodedKeyValue[]
  name: string
  timeUnixNano: string
  droppedAttributesCount: number
}

interface EncodedKeyValue {
  key: string
  value: EncodedAnyValue
}

type EncodedAnyValue =
  | { stringValue: string }
  | { intValue: number }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: EncodedAnyValue[] } }
  | Record<string, never>

/** W3C trace flags `sampled` (every span is kept) with OTLP's "is-remote is known" bit: no parent is remote. */
const SPAN_FLAGS = 0x01 | 0x100

/**
 * Appends `planned` and its subtree to `out`, parents first, each child under its parent's id. `spanId` is the
 * root's id when the caller chose it already (the run span, whose id its trials need before it is written).
 */
export function encodeSpanTree(
  planned: PlannedSpan,
  parentSpanId: string | undefined,
  ctx: EncodeContext,
  out: unknown[],
  spanId: string = ctx.ids.spanId(),
): void {
  const { limits } = ctx
  // Clamped as the SDK clamps them: a span never ends before it starts, nor holds an event from before it.
  const endMs = Math.max(planned.endMs, planned.startMs)
  const attributes = encodeAttributes(planned.attributes, limits.attributeCount, limits.valueLength)
  const planEvents = planned.events ?? []
  // Past the limit the SDK drops the oldest events: the last `eventCount` stay.
  const kept = limits.eventCount > 0 ? planEvents.slice(-limits.eventCount) : []
  const span: EncodedSpan = {
    traceId: ctx.traceId,
    spanId,
    parentSpanId,
    name: planned.name,
    kind: planned.kind + 1,
    startTimeUnixNano: unixNanos(planned.startMs),
    endTimeUnixNano: unixNanos(endMs),
    attributes: attributes.values,
    droppedAttributesCount: attributes.dropped,
    events: kept.map((event) => {
      const eventAttributes = encodeAttributes(
        event.attributes,
        limits.attributesPerEvent,
        limits.valueLength,
      )
      return {
        attributes: eventAttributes.values,
        name: event.name,
        timeUnixNano: unixNanos(Math.max(event.timeMs, planned.startMs)),
        droppedAttributesCount: eventAttributes.dropped,
      }
    }),
    droppedEventsCount: planEvents.length - kept.length,
    status: { code: planned.status?.code ?? 0, message: planned.status?.message },
    links: [],
    droppedLinksCount: 0,
    flags: SPAN_FLAGS,
  }
  out.push(span)
  for (const child of planned.children) encodeSpanTree(child, spanId, ctx, out)
}

/**
 * The text before and after a request's spans: `{"resourceSpans":[{"resource":…,"scopeSpans":[{"scope":…,"spans":[`
 * and `]}]}]}`. A line is then prefix + the spans' JSON joined by commas + suffix, exactly JSON.stringify of the
 * whole request, without encoding the resource again for every trial.
 */
export function envelopeText(envelope: OtlpEnvelope): { prefix: string; suffix: string } {
  const marker = '"__spans__"'
  const whole = JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: encodeAttributes(envelope.resource, Infinity, Infinity).values,
          droppedAttributesCount: 0,
        },
        scopeSpans: [{ scope: { name: envelope.scope.name, version: envelope.scope.version }, spans: [] }],
      },
    ],
  }).replace('"spans":[]', `"spans":[${marker}]`)
  const at = whole.indexOf(marker)
  return { prefix: whole.slice(0, at), suffix: whole.slice(at + marker.length) }
}

/** One ExportTraceServiceRequest line holding `spans` (already encoded, parents first). */
export function requestLine(envelope: { prefix: string; suffix: string }, spans: readonly unknown[]): string {
  return `${envelope.prefix}${spans.map((s) => JSON.stringify(s)).join(',')}${envelope.suffix}`
}

function encodeAttributes(
  attributes: Attributes | Readonly<Record<string, string>>,
  countLimit: number,
  lengthLimit: number,
): { values: EncodedKeyValue[]; dropped: number } {
  const values: EncodedKeyValue[] = []
  let dropped = 0
  for (const key of Object.keys(attributes)) {
    const value = attributes[key]
    // The SDK drops absent values and empty keys when the attributes are set; planned attributes have none.
    if (value === undefined || value === null || key === '') continue
    if (values.length >= countLimit) {
      dropped++
      continue
    }
    values.push({ key, value: anyValue(lengthLimit > 0 ? truncated(value, lengthLimit) : value) })
  }
  return { values, dropped }
}

/** A string, or each string of an array, cut to `limit` characters (UTF-16 units, as the SDK cuts them). */
function truncated(value: AttributeValue, limit: number): AttributeValue {
  if (typeof value === 'string') return value.length <= limit ? value : value.substring(0, limit)
  if (Array.isArray(value)) {
    return value.map((v: unknown) =>
      typeof v === 'string' && v.length > limit ? v.substring(0, limit) : v,
    ) as AttributeValue
  }
  return value
}

function anyValue(value: AttributeValue | null | undefined): EncodedAnyValue {
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } }
  return {}
}

/**
 * Epoch milliseconds as OTLP's decimal nanoseconds, through the same [seconds, nanos] split the SDK makes
 * (`millisToHrTime`), so a fractional millisecond rounds the same way.
 */
export function unixNanos(ms: number): string {
  const seconds = Math.trunc(ms / 1000)
  const nanos = Math.round((ms % 1000) * 1_000_000)
  if (seconds > 0 && nanos >= 0 && nanos < 1_000_000_000) return `${seconds}${String(nanos).padStart(9, '0')}`
  return (BigInt(seconds) * 1_000_000_000n + BigInt(Math.trunc(nanos))).toString()
}

/** Random ids from a pooled buffer of crypto randomness (one system call per few hundred ids). */
export function randomSpanIds(): SpanIds {
  const pool = Buffer.alloc(4096)
  let at = pool.length
  const next = (bytes: number): string => {
    for (;;) {
      if (at + bytes > pool.length) {
        randomFillSync(pool)
        at = 0
      }
      const id = pool.toString('hex', at, at + bytes)
      at += bytes
      // An all-zero id is invalid in W3C trace context; the chance is negligible, but never write one.
      if (!/^0+$/.test(id)) return id
    }
  }
  return { traceId: () => next(16), spanId: () => next(8) }
}
