import { AgentEvalOpsError, type JsonValue } from '../../core/index.ts'

/**
 * The JSONPath subset state checks understand. A path starts at the document root `$` and walks one value at a
 * time:
 * - `.name`: an object member; `name` is letters, digits, `_`, `$`, `-` or any non-ASCII character
 * - `['any key']` or `["any key"]`: an object member by any name (JSON escapes: `\\`, `\'`, `\"`, `\n`, `\uXXXX`, …)
 * - `[0]`: an array element by non-negative index
 *
 * Nothing else: no wildcards, recursive descent (`..`), slices, negative indices, unions or filters. Each path
 * names at most one value, so "equals" has one meaning; a path outside the subset is a configuration error rather
 * than a silent mismatch.
 */
export type JsonPathSegment = { kind: 'key'; key: string } | { kind: 'index'; index: number }

export const JSON_PATH_HINT =
  "Use the supported JSONPath subset: $ followed by .name, ['any key'] or [index] (a non-negative integer); " +
  'wildcards, .., slices, negative indices and filters are not supported.'

type Parsed = { ok: true; segments: JsonPathSegment[] } | { ok: false; reason: string }

const NAME_CHAR = /[A-Za-z0-9_$\-\u0080-\uFFFF]/
const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

/** Parses without throwing, so callers can say where the path came from. */
export function tryParseJsonPath(source: string): Parsed {
  if (!source.startsWith('$')) return { ok: false, reason: 'it must start with $' }
  const segments: JsonPathSegment[] = []
  let i = 1
  // Every branch consumes at least one character or returns, so the loop ends within source.length rounds.
  while (i < source.length) {
    const c = source[i]
    if (c === '.') {
      const start = i + 1
      let end = start
      while (end < source.length && NAME_CHAR.test(source[end]!)) end++
      if (end === start) {
        const next = source[start]
        if (next === '.') return fail('recursive descent (..) is not supported', i)
        if (next === '*') return fail('wildcards (*) are not supported', start)
        return fail('expected a member name after "."', start)
      }
      segments.push({ kind: 'key', key: source.slice(start, end) })
      i = end
    } else if (c === '[') {
      const bracket = parseBracket(source, i)
      if (!bracket.ok) return bracket
      segments.push(bracket.segment)
      i = bracket.end
    } else {
      return fail(`unexpected ${JSON.stringify(c)}; expected "." or "["`, i)
    }
  }
  return { ok: true, segments }
}

type Bracket = { ok: true; segment: JsonPathSegment; end: number } | { ok: false; reason: string }

/** `at` points at "["; on success `end` is just past the closing "]". */
function parseBracket(source: string, at: number): Bracket {
  const first = source[at + 1]
  if (first === "'" || first === '"') {
    const str = parseQuoted(source, at + 1)
    if (!str.ok) return str
    if (source[str.end] !== ']') return fail('expected "]" after the quoted key', str.end)
    return { ok: true, segment: { kind: 'key', key: str.value }, end: str.end + 1 }
  }
  if (first !== undefined && first >= '0' && first <= '9') {
    let end = at + 1
    while (end < source.length && source[end]! >= '0' && source[end]! <= '9') end++
    if (source[end] !== ']') return fail('expected "]" after the index', end)
    const index = Number(source.slice(at + 1, end))
    if (!Number.isSafeInteger(index)) return fail('the index is too large', at + 1)
    return { ok: true, segment: { kind: 'index', index }, end: end + 1 }
  }
  if (first === '-') return fail('negative indices are not supported', at + 1)
  if (first === '*') return fail('wildcards (*) are not supported', at + 1)
  return fail('expected an index or a quoted key after "["', at + 1)
}

type Quoted = { ok: true; value: string; end: number } | { ok: false; reason: string }

/** `at` points at the opening quote; on success `end` is just past the closing one. */
function parseQuoted(source: string, at: number): Quoted {
  const quote = source[at]
  let value = ''
  let i = at + 1
  while (i < source.length) {
    const c = source[i]!
    if (c === quote) return { ok: true, value, end: i + 1 }
    if (c !== '\\') {
      value += c
      i++
      continue
    }
    const e = source[i + 1]
    if (e === undefined) break
    const simple = SIMPLE_ESCAPES[e]
    if (simple !== undefined) {
      value += simple
      i += 2
    } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16))
      i += 6
    } else {
      return fail(`unknown escape \\${e}`, i)
    }
  }
  return fail('unterminated quoted key', at)
}

function fail(reason: string, position: number): { ok: false; reason: string } {
  return { ok: false, reason: `${reason} (at character ${position})` }
}

/** Parses a path of the supported subset; anything else is CONFIG_INVALID, with a hint listing the subset. */
export function parseJsonPath(source: string): JsonPathSegment[] {
  const parsed = tryParseJsonPath(source)
  if (parsed.ok) return parsed.segments
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `invalid JSON path ${JSON.stringify(source)}: ${parsed.reason}`,
    {
      hint: JSON_PATH_HINT,
    },
  )
}

const SIMPLE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** Writes segments back as a path, for messages that say how far a lookup got. */
export function formatJsonPath(segments: readonly JsonPathSegment[]): string {
  return segments.reduce(
    (acc, s) =>
      s.kind === 'index'
        ? `${acc}[${s.index}]`
        : SIMPLE_NAME.test(s.key)
          ? `${acc}.${s.key}`
          : `${acc}[${JSON.stringify(s.key)}]`,
    '$',
  )
}

export type Lookup = { found: true; value: JsonValue } | { found: false; reason: string }

function describe(value: JsonValue): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** Follows the path; a miss says where it stopped and why. Own properties only, so `constructor` is never found. */
export function lookupJsonPath(document: JsonValue, segments: readonly JsonPathSegment[]): Lookup {
  let current: JsonValue = document
  for (const [n, segment] of segments.entries()) {
    const at = formatJsonPath(segments.slice(0, n))
    if (segment.kind === 'index') {
      if (!Array.isArray(current))
        return { found: false, reason: `${at} is ${describe(current)}, not an array` }
      if (segment.index >= current.length)
        return { found: false, reason: `${at} has ${current.length} elements, no index ${segment.index}` }
      current = current[segment.index]!
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current))
        return { found: false, reason: `${at} is ${describe(current)}, not an object` }
      if (!Object.hasOwn(current, segment.key))
        return { found: false, reason: `${at} has no key ${JSON.stringify(segment.key)}` }
      current = current[segment.key]!
    }
  }
  return { found: true, value: current }
}
