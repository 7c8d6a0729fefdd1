import {
  buildRunSpanLines,
  otlpSpans,
  parseOtlpLines,
  type OtlpSpan,
  type OtlpTraceRequest,
  type RunSpansInput,
} from '../../src/observability/index.ts'
import type { AttributeValue } from '../../src/observability/plan.ts'

/*
 * spans.jsonl read back into the shape the span tests assert on (named after the SDK's ReadableSpan, which they
 * were first written against): attributes as plain values, times as [seconds, nanoseconds], kinds in the API's
 * numbering (OTLP's minus one). What the tests check is then what the file holds.
 */

export type HrTime = [number, number]

export interface DecodedSpan {
  name: string
  kind: number
  spanContext(): { traceId: string; spanId: string }
  parentSpanContext: { traceId: string; spanId: string } | undefined
  startTime: HrTime
  endTime: HrTime
  attributes: Record<string, AttributeValue>
  events: { name: string; time: HrTime; attributes: Record<string, AttributeValue> }[]
  status: { code: number; message?: string }
  resource: { attributes: Record<string, AttributeValue> }
  instrumentationScope: { name: string; version?: string }
}

/**
 * The run's spans from the direct writer, read back from its lines, in the order the tree is walked: `eval.run`,
 * each trial's spans, then the run's other spans (`eval.score`, `eval.report`).
 */
export function buildRunSpans(input: RunSpansInput): DecodedSpan[] {
  const [runLine, ...trialLines] = decodeSpanLines(buildRunSpanLines(input))
  const [root, ...rest] = runLine!
  return [root!, ...trialLines.flat(), ...rest]
}

/** Each line's spans, decoded. */
export function decodeSpanLines(lines: readonly string[]): DecodedSpan[][] {
  return lines.map((line) => {
    const [request] = parseOtlpLines(line) as [OtlpTraceRequest]
    const resource = { attributes: decodeAttributes(request.resourceSpans[0]?.resource?.attributes) }
    const scope = request.resourceSpans[0]?.scopeSpans[0]?.scope
    const instrumentationScope = {
      name: scope?.name ?? '',
      ...(scope?.version === undefined ? {} : { version: scope.version }),
    }
    return otlpSpans([request]).map((span) => decodeSpan(span, resource, instrumentationScope))
  })
}

function decodeSpan(
  span: OtlpSpan,
  resource: DecodedSpan['resource'],
  instrumentationScope: DecodedSpan['instrumentationScope'],
): DecodedSpan {
  const context = { traceId: span.traceId, spanId: span.spanId }
  const parent = span.parentSpanId ? { traceId: span.traceId, spanId: span.parentSpanId } : undefined
  return {
    name: span.name,
    kind: (span.kind ?? 0) - 1,
    spanContext: () => context,
    parentSpanContext: parent,
    startTime: hrTime(span.startTimeUnixNano),
    endTime: hrTime(span.endTimeUnixNano),
    attributes: decodeAttributes(span.attributes),
    events: (span.events ?? []).map((e) => ({
      name: e.name,
      time: hrTime(e.timeUnixNano),
      attributes: decodeAttributes(e.attributes),
    })),
    status: {
      code: span.status?.code ?? 0,
      ...(span.status?.message === undefined ? {} : { message: span.status.message }),
    },
    resource,
    instrumentationScope,
  }
}

function hrTime(nanos: string | number): HrTime {
  const n = BigInt(nanos)
  return [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)]
}

type KeyValues = OtlpSpan['attributes']

function decodeAttributes(attributes: KeyValues): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {}
  for (const { key, value } of attributes ?? []) out[key] = decodeValue(value) as AttributeValue
  return out
}

function decodeValue(value: unknown): unknown {
  const v = (value ?? {}) as Record<string, unknown>
  if ('stringValue' in v) return v['stringValue']
  if ('boolValue' in v) return v['boolValue']
  if ('intValue' in v) return Number(v['intValue'])
  if ('doubleValue' in v) return Number(v['doubleValue'])
  if ('arrayValue' in v) {
    const values = (v['arrayValue'] as { values?: unknown[] }).values ?? []
    return values.map(decodeValue)
  }
  throw new Error(`an attribute value of no known type: ${JSON.stringify(value)}`)
}
