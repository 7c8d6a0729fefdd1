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
