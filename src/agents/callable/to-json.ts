import type { JsonValue } from '../../core/index.ts'

/** A value made fit for a trace event, and what was changed to make it fit (absent when nothing was). */
export interface JsonConversion {
  value: JsonValue
  note?: string
}

const MAX_NOTES = 3

/**
 * Converts whatever a user's tool took or returned into plain JSON, never throwing: the engine refuses payloads
 * that are not JSON, and a tool's odd return value must not turn into a failed trial. Anything JSON.stringify
 * would drop or choke on (undefined, NaN, bigint, cycles, Maps) is converted and named in the note, so the trace
 * does not silently claim the tool returned something it did not.
 */
export function toJson(value: unknown, what: string): JsonConversion {
  const notes: string[] = []
  const converted = convert(value, what, [], notes) ?? null
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    notes.unshift(`${what} was ${describe(value)}, recorded as null`)
  }
  if (notes.length === 0) return { value: converted }
  const shown = notes.slice(0, MAX_NOTES).join('; ')
  const more = notes.length > MAX_NOTES ? ` (and ${notes.length - MAX_NOTES} more)` : ''
  return { value: converted, note: `${shown}${more}` }
}

/** `undefined` means "leave the key out", as JSON.stringify does for object members. */
function convert(value: unknown, path: string, ancestors: object[], notes: string[]): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (Number.isFinite(value)) return value
      notes.push(`${path} was ${value}, recorded as null`)
      return null
    case 'bigint':
      notes.push(`${path} was a bigint, recorded as a string`)
      return value.toString()
    case 'undefined':
      return undefined
    case 'function':
    case 'symbol':
      // The top level is noted by the caller; a member is worth a note as it is dropped.
      if (ancestors.length > 0) notes.push(`${path} was ${describe(value)}, left out`)
      return undefined
    case 'object':
      return value === null ? null : convertObject(value, path, ancestors, notes)
  }
}

function convertObject(value: object, path: string, ancestors: object[], notes: string[]): JsonValue {
  if (ancestors.includes(value)) {
    notes.push(`${path} refers back to its own container, recorded as "[Circular]"`)
    return '[Circular]'
  }
  const inner = [...ancestors, value]
  if (value instanceof Error) return { name: value.name, message: value.message }
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') {
    try {
      return convert(toJSON.call(value) as unknown, path, inner, notes) ?? null
    } catch (e) {
      notes.push(`${path}.toJSON() threw (${e instanceof Error ? e.message : String(e)}), recorded as null`)
      return null
    }
  }
  if (value instanceof Map) {
    notes.push(`${path} was a Map, recorded as an object`)
    const entries = [...(value as Map<unknown, unknown>)].map(
      ([k, v]) => [String(k), convert(v, `${path}.${String(k)}`, inner, notes)] as const,
    )
    return Object.fromEntries(entries.filter((e): e is [string, JsonValue] => e[1] !== undefined))
  }
  if (value instanceof Set) {
    notes.push(`${path} was a Set, recorded as an array`)
    return [...(value as Set<unknown>)].map((v, i) => convert(v, `${path}[${i}]`, inner, notes) ?? null)
  }
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = Array.from(value as ArrayLike<unknown>)
    return items.map((v, i) => convert(v, `${path}[${i}]`, inner, notes) ?? null)
  }
  const out: Record<string, JsonValue> = {}
  for (const [key, member] of Object.entries(value)) {
    const converted = convert(member, `${path}.${key}`, inner, notes)
    if (converted !== undefined) out[key] = converted
  }
  return out
}

function describe(value: unknown): string {
  return value === undefined ? 'undefined' : `a ${typeof value}`
}
