import { JsonValue, TracePayloads, type Redactor, type TraceEventKind } from '../core/index.ts'

/**
 * The fields of each event kind whose shape the schema fixes: every other field (a tool's `args` and `result`, a
 * runner's extra keys) is free-form, where a secret may also come as a number or a short whole value.
 */
const FIXED_FIELDS = new Map<TraceEventKind, ReadonlySet<string>>(
  Object.entries(TracePayloads).map(([kind, schema]) => [
    kind as TraceEventKind,
    new Set(Object.entries(schema.shape).flatMap(([field, type]) => (type === JsonValue ? [] : [field]))),
  ]),
)

/**
 * An event's payload with its secrets replaced: strings and object keys everywhere, and whole values equal to a
 * secret (a number whose digits are a PIN, a string equal to it) in the free-form fields only, so a token count that
 * happens to equal a PIN stays a number.
 */
export function redactPayload<P>(redactor: Redactor, kind: TraceEventKind, payload: P): P {
  const redacted = redactor.json(payload)
  if (redacted === null || typeof redacted !== 'object' || Array.isArray(redacted)) return redacted
  const fixed = FIXED_FIELDS.get(kind)
  let changed = false
  const out = Object.entries(redacted as Record<string, unknown>).map(([field, value]): [string, unknown] => {
    if (fixed?.has(field)) return [field, value]
    const r = redactor.json(value, { wholeValues: true })
    if (r !== value) changed = true
    return [field, r]
  })
  return changed ? (Object.fromEntries(out) as P) : redacted
}
