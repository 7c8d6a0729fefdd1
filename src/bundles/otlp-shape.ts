import { shapeChecks } from '../core/index.ts'

const { isCount, isObject, isString, optional } = shapeChecks

/**
 * A hand-written test of the OtlpTraceRequest schema (src/core/otlp.ts) for spans.jsonl's lines, one-sided like
 * isTraceEvent: true only for what the schema accepts, false sends the line to the schema. Assumes isPlainValue.
 */
export function isOtlpTraceRequest(value: unknown): boolean {
  if (!isObject(value)) return false
  const resourceSpans = value['resourceSpans']
  if (!Array.isArray(resourceSpans)) return false
  for (const rs of resourceSpans) {
    if (!isObject(rs)) return false
    const resource = rs['resource']
    if (resource !== undefined && !(isObject(resource) && optional(resource['attributes'], isKeyValues)))
      return false
    const scopeSpans = rs['scopeSpans']
    if (!Array.isArray(scopeSpans)) return false
    for (const ss of scopeSpans) {
      if (!isObject(ss)) return false
      const scope = ss['scope']
      if (
        scope !== undefined &&
        !(isObject(scope) && optional(scope['name'], isString) && optional(scope['version'], isString))
      )
        return false
      const spans = ss['spans']
      if (!Array.isArray(spans)) return false
      for (const span of spans) if (!isSpan(span)) return false
    }
  }
  return true
}

const TRACE_ID = /^[0-9a-f]{32}$/
const SPAN_ID = /^[0-9a-f]{16}$/
const UINT64_TEXT = /^\d+$/
const INT_TEXT = /^-?\d+$/

function isSpan(span: unknown): boolean {
  if (!isObject(span)) return false
  const { traceId, spanId, parentSpanId, kind, status } = span
  if (typeof traceId !== 'string' || !TRACE_ID.test(traceId)) return false
  if (typeof spanId !== 'string' || !SPAN_ID.test(spanId)) return false
  if (parentSpanId !== undefined && !(parentSpanId === '' || isHex16(parentSpanId))) return false
  if (!isString(span['name'])) return false
  if (kind !== undefined && !(isCount(kind) && (kind as number) <= 5)) return false
  if (!isUint64(span['startTimeUnixNano']) || !isUint64(span['endTimeUnixNano'])) return false
  if (!optional(span['attributes'], isKeyValues)) return false
  const events = span['events']
  if (events !== undefined) {
    if (!Array.isArray(events)) return false
    for (const event of events) {
      if (
        !isObject(event) ||
        !isString(event['name']) ||
        !isUint64(event['timeUnixNano']) ||
        !optional(event['attributes'], isKeyValues)
      )
        return false
    }
  }
  if (status !== undefined) {
    if (!isObject(status)) return false
    const code = status['code']
    if (code !== undefined && !(isCount(code) && (code as number) <= 2)) return false
    if (!optional(status['message'], isString)) return false
  }
  return true
}

function isHex16(value: unknown): boolean {
  return typeof value === 'string' && SPAN_ID.test(value)
}

function isUint64(value: unknown): boolean {
  if (typeof value === 'string') return UINT64_TEXT.test(value)
  return typeof value === 'number' && value >= 0 && !Object.is(value, -0)
}

function isKeyValues(value: unknown): boolean {
  if (!Array.isArray(value)) return false
  for (const kv of value) {
    if (!isObject(kv) || !isString(kv['key'])) return false
    if (kv['value'] !== undefined && !isAnyValue(kv['value'])) return false
  }
  return true
}

function isAnyValue(value: unknown): boolean {
  if (!isObject(value)) return false
  const { stringValue, boolValue, intValue, doubleValue, arrayValue, kvlistValue, bytesValue } = value
  if (stringValue !== undefined && !isString(stringValue)) return false
  if (boolValue !== undefined && boolValue !== true && boolValue !== false) return false
  if (
    intValue !== undefined &&
    !(typeof intValue === 'number' || (isString(intValue) && INT_TEXT.test(intValue)))
  )
    return false
  if (doubleValue !== undefined && typeof doubleValue !== 'number' && !isString(doubleValue)) return false
  if (bytesValue !== undefined && !isString(bytesValue)) return false
  if (arrayValue !== undefined) {
    if (!isObject(arrayValue)) return false
    const values = arrayValue['values']
    if (values !== undefined && !(Array.isArray(values) && values.every(isAnyValue))) return false
  }
  if (kvlistValue !== undefined) {
    if (!isObject(kvlistValue)) return false
    if (!optional(kvlistValue['values'], isKeyValues)) return false
  }
  return true
}
