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

/** W3C trace flags `sampled` (every span is kept) with OTLP's "is-remote is known" bit: no parent is remote. */
const SPAN_FLAGS = 0x01 | 0x100

/**
 * Appends the JSON of `planned` and its subtree to `out`, parents first, each child under its parent's id.
 * `spanId` is the root's id when the caller chose it already (the run span, whose id its trials need before it is
 * written). The JSON is written as text, in the exporter's key order, rather than built as objects and stringified:
 * this runs once per span of every trial, and the intermediate objects were most of its cost.
 */
export function encodeSpanTree(
  planned: PlannedSpan,
  parentSpanId: string | undefined,
  ctx: EncodeContext,
  out: string[],
  spanId: string = ctx.ids.spanId(),
): void {
  const { limits } = ctx
  // Clamped as the SDK clamps them: a span never ends before it starts, nor holds an event from before it.
  const endMs = Math.max(planned.endMs, planned.startMs)
  const attributes = attributesJson(planned.attributes, limits.attributeCount, limits.valueLength)
  const planEvents = planned.events ?? []
  // Past the limit the SDK drops the oldest events: the last `eventCount` stay.
  const kept = limits.eventCount > 0 ? planEvents.slice(-limits.eventCount) : []
  let events = ''
  for (const event of kept) {
    const eventAttributes = attributesJson(event.attributes, limits.attributesPerEvent, limits.valueLength)
    if (events !== '') events += ','
    events +=
      `{"attributes":[${eventAttributes.json}],"name":${JSON.stringify(event.name)},` +
      `"timeUnixNano":"${unixNanos(Math.max(event.timeMs, planned.startMs))}",` +
      `"droppedAttributesCount":${eventAttributes.dropped}}`
  }
  const status = planned.status
  const message = status?.message === undefined ? '' : `,"message":${JSON.stringify(status.message)}`
  out.push(
    `{"traceId":"${ctx.traceId}","spanId":"${spanId}"` +
      (parentSpanId === undefined ? '' : `,"parentSpanId":"${parentSpanId}"`) +
      `,"name":${JSON.stringify(planned.name)},"kind":${planned.kind + 1}` +
      `,"startTimeUnixNano":"${unixNanos(planned.startMs)}","endTimeUnixNano":"${unixNanos(endMs)}"` +
      `,"attributes":[${attributes.json}],"droppedAttributesCount":${attributes.dropped}` +
      `,"events":[${events}],"droppedEventsCount":${planEvents.length - kept.length}` +
      `,"status":{"code":${status?.code ?? 0}${message}}` +
      `,"links":[],"droppedLinksCount":0,"flags":${SPAN_FLAGS}}`,
  )
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
        resource: { attributes: [], droppedAttributesCount: 0 },
        scopeSpans: [{ scope: { name: envelope.scope.name, version: envelope.scope.version }, spans: [] }],
      },
    ],
  })
    .replace(
      '"attributes":[]',
      `"attributes":[${attributesJson(envelope.resource, Infinity, Infinity).json}]`,
    )
    .replace('"spans":[]', `"spans":[${marker}]`)
  const at = whole.indexOf(marker)
  return { prefix: whole.slice(0, at), suffix: whole.slice(at + marker.length) }
}

/** One ExportTraceServiceRequest line holding `spans` (their JSON, parents first). */
export function requestLine(envelope: { prefix: string; suffix: string }, spans: readonly string[]): string {
  return `${envelope.prefix}${spans.join(',')}${envelope.suffix}`
}

/** The JSON of an attribute list (without its brackets), and how many attributes the count limit dropped. */
function attributesJson(
  attributes: Attributes | Readonly<Record<string, string>>,
  countLimit: number,
  lengthLimit: number,
): { json: string; dropped: number } {
  let json = ''
  let count = 0
  let dropped = 0
  for (const key of Object.keys(attributes)) {
    const value = attributes[key]
    // The SDK drops absent values and empty keys when the attributes are set; planned attributes have none.
    if (value === undefined || value === null || key === '') continue
    if (count >= countLimit) {
      dropped++
      continue
    }
    if (count > 0) json += ','
    count++
    json += `${keyJson(key)}${anyValueJson(lengthLimit > 0 ? truncated(value, lengthLimit) : value)}}`
  }
  return { json, dropped }
}

/**
 * `{"key":<key>,"value":` for an attribute key. Spans use a few dozen keys over and over (labels add a few), so
 * their JSON is kept rather than made again for every attribute of every span; the cache is bounded all the same.
 */
const keyJsonCache = new Map<string, string>()
const KEY_CACHE_LIMIT = 10_000

function keyJson(key: string): string {
  let json = keyJsonCache.get(key)
  if (json === undefined) {
    json = `{"key":${JSON.stringify(key)},"value":`
    if (keyJsonCache.size < KEY_CACHE_LIMIT) keyJsonCache.set(key, json)
  }
  return json
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

/** An OTLP AnyValue as the exporter writes it: integers as intValue, other numbers as doubleValue. */
function anyValueJson(value: AttributeValue | null | undefined): string {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${JSON.stringify(value)}}`
    case 'number':
      return Number.isInteger(value)
        ? `{"intValue":${JSON.stringify(value)}}`
        : `{"doubleValue":${JSON.stringify(value)}}`
    case 'boolean':
      return `{"boolValue":${value}}`
  }
  if (Array.isArray(value)) {
    return `{"arrayValue":{"values":[${value.map((v: AttributeValue | null | undefined) => anyValueJson(v)).join(',')}]}}`
  }
  return '{}'
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
