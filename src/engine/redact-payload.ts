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
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return redactor.json(payload)
  const fixed = FIXED_FIELDS.get(kind)
  const fields = Object.entries(payload as Record<string, unknown>)
  // A secret in a field name of its own (rare): the whole-object walk renames it without losing a colliding key.
  if (fields.some(([field]) => !fixed?.has(field) && redactor.string(field) !== field))
    return redactFreeForm(redactor, fixed, redactor.json(payload))
  return redactFreeForm(redactor, fixed, payload, (value) => redactor.json(value))
}

/** One walk per field: the fixed ones as plain JSON (or as they are, when already walked), the others whole-value. */
function redactFreeForm<P>(
  redactor: Redactor,
  fixed: ReadonlySet<string> | undefined,
  payload: P,
  fixedField: (value: unknown) => unknown = (value) => value,
): P {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload
  let changed = false
  const out = Object.entries(payload as Record<string, unknown>).map(([field, value]): [string, unknown] => {
    const r = fixed?.has(field) ? fixedField(value) : redactor.json(value, { wholeValues: true })
    if (r !== value) changed = true
    return [field, r]
  })
  return changed ? (Object.fromEntries(out) as P) : payload
}
