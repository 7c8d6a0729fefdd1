/*
 * OTLP JSON's typed values (AnyValue, KeyValue lists, 64-bit nanosecond times) as plain JavaScript, the form the
 * attribute mapping reads. Lenient on purpose: exporters differ in how they write integers (string or number) and
 * a value of an unknown shape becomes null rather than failing the whole span.
 */

/** One OTLP AnyValue as a plain value: strings, numbers, booleans, arrays and objects (kvlists). */
export function plainValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return null
  const v = value as Record<string, unknown>
  if (typeof v['stringValue'] === 'string') return v['stringValue']
  if (typeof v['boolValue'] === 'boolean') return v['boolValue']
  if (v['intValue'] !== undefined) return numberOf(v['intValue'])
  if (v['doubleValue'] !== undefined) return numberOf(v['doubleValue'])
  if (typeof v['bytesValue'] === 'string') return v['bytesValue']
  const array = v['arrayValue'] as { values?: unknown[] } | undefined
  if (array && typeof array === 'object') return (array.values ?? []).map(plainValue)
  const kvlist = v['kvlistValue'] as { values?: unknown[] } | undefined
  if (kvlist && typeof kvlist === 'object') return plainAttributes(kvlist.values)
  return null
}

/** An OTLP attribute list as a record; a key given twice keeps its last value, as the SDKs do. */
export function plainAttributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!Array.isArray(list)) return out
  for (const kv of list as unknown[]) {
    if (kv === null || typeof kv !== 'object') continue
    const { key, value } = kv as { key?: unknown; value?: unknown }
    if (typeof key === 'string' && key !== '') out[key] = plainValue(value)
  }
  return out
}

function numberOf(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
  return Number.isFinite(n) ? n : null
}

/** Nanoseconds since the epoch (decimal string or number) as BigInt; null when it is not a time. */
export function unixNanosOf(value: unknown): bigint | null {
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value)
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return BigInt(Math.trunc(value))
  return null
}

/** An ISO 8601 time (UTC) with the nanoseconds kept: `2026-02-09T17:41:15.172663123Z`. */
export function isoFromUnixNanos(nanos: bigint): string {
  const ms = Number(nanos / 1_000_000n)
  const base = new Date(ms).toISOString() // …T17:41:15.172Z
  const subMs = String(nanos % 1_000_000n).padStart(6, '0')
  return `${base.slice(0, -1)}${subMs}Z`
}

/** The JSON a string holds, or the string itself when it is not JSON (attributes often carry JSON as text). */
export function jsonOrText(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const text = value.trim()
  if (!(text.startsWith('{') || text.startsWith('['))) return value
  try {
    return JSON.parse(text) as unknown
  } catch {
    return value
  }
}
