import type { SpanLimits } from './otlp-encode.ts'

/** The environment, as the OTEL_* settings are read from it. */
export type Env = Readonly<Record<string, string | undefined>>

/**
 * A `key=value,key2=value2` list as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES write it: entries
 * trimmed, keys and values percent-decoded (so `Authorization=Basic%20abc` gives a space; a `+` stays a `+`,
 * since base64 credentials contain it). Entries without a key or an `=` are skipped, as the SDKs skip them.
 */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of (text ?? '').split(',')) {
    const at = entry.indexOf('=')
    if (at < 0) continue
    const key = decode(entry.slice(0, at).trim())
    if (key === '') continue
    out[key] = decode(entry.slice(at + 1).trim())
  }
  return out
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    // A lone `%` is more likely meant literally than a mistake worth failing the export for.
    return text
  }
}

/** OTEL_RESOURCE_ATTRIBUTES, which every OpenTelemetry SDK adds to the resource. */
export function resourceAttributesFromEnv(env: Env): Record<string, string> {
  return parseKeyValues(env['OTEL_RESOURCE_ATTRIBUTES'])
}

/**
 * The span limits OpenTelemetry's SDK applies, from the same variables (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, else
 * OTEL_ATTRIBUTE_COUNT_LIMIT, default 128; OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, else
 * OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, default none; OTEL_SPAN_EVENT_COUNT_LIMIT and
 * OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT, default 128), so a setting that trimmed the SDK's spans trims ours.
 */
export function spanLimitsFromEnv(env: Env): SpanLimits {
  const number = (...names: string[]): number | undefined => {
    for (const name of names) {
      const raw = env[name]
      if (raw === undefined || raw.trim() === '') continue
      const value = Number(raw)
      if (!Number.isNaN(value)) return value
    }
    return undefined
  }
  return {
    attributeCount: number('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT') ?? 128,
    valueLength:
      number('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? Infinity,
    eventCount: number('OTEL_SPAN_EVENT_COUNT_LIMIT') ?? 128,
    attributesPerEvent: number('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT') ?? 128,
  }
}
