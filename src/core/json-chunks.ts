/**
 * JSON.stringify(value, null, indent ? 2 : undefined) as a sequence of pieces, so that a large document (a 100,000-
 * task summary, report.html's run part) is written without its whole text, or a copy of it, in memory. Joined, the
 * pieces are the bytes JSON.stringify gives: keys whose values are undefined, functions or symbols are left out,
 * such array elements become null, toJSON is honoured. `prefix` is added after every newline, as when the text is
 * nested that deep in an indented document. The pieces are gathered into strings of about `chunkChars`.
 */
export function* jsonChunks(
  value: unknown,
  options: { indent?: boolean; prefix?: string; chunkChars?: number } = {},
): Generator<string> {
  const chunkChars = options.chunkChars ?? 64 * 1024
  let pending = ''
  for (const piece of pieces(jsonValueOf(value, ''), options.indent ? (options.prefix ?? '') : null)) {
    pending += piece
    if (pending.length >= chunkChars) {
      yield pending
      pending = ''
    }
  }
  if (pending !== '') yield pending
}

/**
 * An array jsonChunks writes an element at a time as `elements` gives them, without holding them (a table read
 * back from a file). JSON.stringify gets the same text through toJSON, holding them all.
 */
export class StreamedJsonArray<T> implements Iterable<T> {
  constructor(private readonly elements: () => Iterable<T>) {}

  [Symbol.iterator](): Iterator<T> {
    return this.elements()[Symbol.iterator]()
  }

  toJSON(): T[] {
    return Array.from(this.elements())
  }
}

/**
 * `value` past its toJSON; `indent` is the current line's indentation, null for compact text. A container of a few
 * hundred values at most is one piece from JSON.stringify itself: a generator step per value would cost more than
 * the text (a 10,000-task summary: 200 ms against 20).
 */
function* pieces(value: unknown, indent: string | null): Generator<string> {
  if (value === null || typeof value !== 'object') {
    yield JSON.stringify(value)
    return
  }
  if (value instanceof StreamedJsonArray) {
    yield* elementPieces(value, indent)
    return
  }
  if (!hasToJson(value) && fewValues(value, { left: SMALL_VALUES })) {
    if (indent === null) yield JSON.stringify(value)
    else {
      const text = JSON.stringify(value, null, 2)
      yield indent === '' ? text : text.replaceAll('\n', `\n${indent}`)
    }
    return
  }
  if (Array.isArray(value)) {
    yield* elementPieces(value, indent)
    return
  }
  const inner = indent === null ? null : `${indent}  `
  const open = inner === null ? '' : `\n${inner}`
  const close = indent === null ? '' : `\n${indent}`
  let first = true
  for (const name of Object.keys(value)) {
    const entry = jsonValueOf((value as Record<string, unknown>)[name], name)
    if (omitted(entry)) continue
    yield `${first ? '{' : ','}${open}${JSON.stringify(name)}:${inner === null ? '' : ' '}`
    first = false
    yield* pieces(entry, inner)
  }
  yield first ? '{}' : `${close}}`
}

/** An array's elements, or a streamed one's as its source gives them. */
function* elementPieces(elements: Iterable<unknown>, indent: string | null): Generator<string> {
  const inner = indent === null ? null : `${indent}  `
  const open = inner === null ? '' : `\n${inner}`
  let i = 0
  for (const item of elements) {
    yield `${i === 0 ? '[' : ','}${open}`
    const element = jsonValueOf(item, String(i))
    if (omitted(element)) yield 'null'
    else yield* pieces(element, inner)
    i++
  }
  yield i === 0 ? '[]' : `${indent === null ? '' : `\n${indent}`}]`
}

/** Containers of at most this many values (nested ones counted) are stringified whole. */
const SMALL_VALUES = 256

/** Whether `value` holds at most `budget.left` values, counting down as it looks; stops once there are more. */
function fewValues(value: object, budget: { left: number }): boolean {
  const items: readonly unknown[] = Array.isArray(value) ? value : Object.values(value)
  for (const item of items) {
    if (--budget.left < 0 || item instanceof StreamedJsonArray) return false
    if (item !== null && typeof item === 'object' && !fewValues(item, budget)) return false
  }
  return true
}

function hasToJson(value: object): boolean {
  return 'toJSON' in value && typeof value.toJSON === 'function'
}

/** What JSON.stringify serialises for `value` under `key`: its toJSON(key), when it has one. */
function jsonValueOf(value: unknown, key: string): unknown {
  if (value instanceof StreamedJsonArray) return value
  if (value !== null && typeof value === 'object' && hasToJson(value))
    return (value as { toJSON: (key: string) => unknown }).toJSON(key)
  return value
}

function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol'
}
