// Damage for the bundle reader's fuzz test: byte-level edits (truncation, bit flips, insertions, deletions) and
// JSON-level edits (a value swapped for one of another type, a huge number, deep nesting, a duplicate or
// `__proto__` key), applied in memory to a file's bytes.
import fc from 'fast-check'

/** Positions are drawn as fractions of the file (in millionths), so one draw fits a file of any size. */
const FRACTION = 1_000_000
const at = fc.nat({ max: FRACTION })

/** Raw JSON texts that break types, ranges, parsers and stacks. Built lazily: some are large. */
const NASTY_JSON: readonly (() => string)[] = [
  () => 'null',
  () => 'true',
  () => '[]',
  () => '{}',
  () => '""',
  () => '"x"',
  () => '0',
  () => '-0',
  () => '-1',
  () => '0.5',
  () => '1e308',
  () => '-1e308',
  () => '1e309',
  () => '1e-400',
  () => '18446744073709551616',
  () => '9007199254740993',
  () => '"\\ud800"',
  () => '"\\u0000"',
  () => '"../../etc/passwd"',
  () => '"/etc/passwd"',
  () => '"C:\\\\Windows\\\\win.ini"',
  () => `"${'a'.repeat(64)}"`,
  () => '"2025-01-02T03:04:05.000Z"',
  () => '{"__proto__":{"polluted":true}}',
  () => '{"constructor":{"prototype":{"polluted":true}}}',
  () => '{"a":1,"a":"two","a":[3]}',
  () => '[[[[[[[[[[]]]]]]]]]]',
  () => nestedArrays(600),
  () => nestedArrays(20_000),
  () => nestedObjects(600),
  () => nestedObjects(5_000),
  () => `"${'x'.repeat(20_000)}"`,
  () => `[${'1,'.repeat(10_000)}1]`,
  () => `{${Array.from({ length: 2_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
]

/** Paths a manifest must never make the reader touch, and paths that name a file twice. */
const HOSTILE_PATHS: readonly string[] = [
  '../x',
  '../../../../etc/passwd',
  '/etc/passwd',
  'a/../../b',
  'artifacts/../../outside.txt',
  './metadata.json',
  'artifacts//task-0/answer.txt',
  'C:\\Windows\\win.ini',
  'C:/Windows/win.ini',
  '\\\\server\\share\\x',
  'nul\u0000.txt',
  '',
  '.',
  'manifest.json',
  'metadata.json',
  'traces.jsonl',
]

export function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth)
}

export function nestedObjects(depth: number): string {
  return '{"a":'.repeat(depth) + 'null' + '}'.repeat(depth)
}

/** Byte sequences worth inserting: bad UTF-8, a BOM, a newline, a NUL, JSON punctuation. */
const NASTY_BYTES: readonly number[][] = [
  [0xff],
  [0xc3],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xef, 0xbb, 0xbf],
  [0x0a],
  [0x0a, 0x0a],
  [0x00],
  [0x7b],
  [0x5d],
  [0x22],
]

export type ByteEdit =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'duplicate'; at: number; length: number }

export type JsonEdit =
  /** Replace the value found by following `path` (child indices, each taken modulo the children there). */
  | { kind: 'replace'; line: number; path: number[]; nasty: number }
  /** Nudge the number found there: off by one, negated, or pushed past 2^53. */
  | { kind: 'renumber'; line: number; path: number[]; how: number }
  /** Append a key to the object found there: one it already has (a duplicate) or `__proto__`. */
  | { kind: 'add-key'; line: number; path: number[]; key: number; nasty: number }
  /** Drop the entry found there. */
  | { kind: 'remove'; line: number; path: number[] }
  /** manifest.json only: point one of its entries at a path outside the bundle, or at a file listed already. */
  | { kind: 'manifest-path'; line: number; entry: number; to: number }

export type Edit = ByteEdit | JsonEdit

const path = fc.array(fc.nat(), { maxLength: 6 })
const nasty = fc.nat({ max: NASTY_JSON.length - 1 })

export const byteEdit: fc.Arbitrary<ByteEdit> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at }),
  fc.record({ kind: fc.constant('flip' as const), at, bit: fc.nat({ max: 7 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at,
    bytes: fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 12 }),
      fc.constantFrom(...NASTY_BYTES).map((b) => Uint8Array.from(b)),
    ),
  }),
  fc.record({ kind: fc.constant('delete' as const), at, length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at, length: fc.integer({ min: 1, max: 256 }) }),
)

export const jsonEdit: fc.Arbitrary<JsonEdit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), line: fc.nat(), path, nasty }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('renumber' as const),
      line: fc.nat(),
      path,
      how: fc.nat({ max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('add-key' as const),
      line: fc.nat(),
      path,
      key: fc.nat(),
      nasty,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), line: fc.nat(), path }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('manifest-path' as const),
      line: fc.constant(0),
      entry: fc.nat(),
      to: fc.nat({ max: HOSTILE_PATHS.length - 1 }),
    }),
  },
)

export function applyEdits(file: string, bytes: Buffer, edits: readonly Edit[]): Buffer {
  let out = bytes
  for (const edit of edits) {
    if ('line' in edit) out = applyJsonEdit(file, out, edit) ?? out
    else out = applyByteEdit(out, edit)
  }
  return out
}

function position(bytes: Buffer, fraction: number): number {
  return Math.floor((bytes.length * fraction) / FRACTION)
}

export function applyByteEdit(bytes: Buffer, edit: ByteEdit): Buffer {
  const i = position(bytes, edit.at)
  switch (edit.kind) {
    case 'truncate':
      return bytes.subarray(0, i)
    case 'flip': {
      if (bytes.length === 0) return bytes
      const copy = Buffer.from(bytes)
      const j = Math.min(i, copy.length - 1)
      copy[j] = copy[j]! ^ (1 << edit.bit)
      return copy
    }
    case 'insert':
      return Buffer.concat([bytes.subarray(0, i), edit.bytes, bytes.subarray(i)])
    case 'delete':
      return Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + edit.length)])
    case 'duplicate':
      return Buffer.concat([bytes.subarray(0, i + edit.length), bytes.subarray(i)])
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** Stands in for the new value while the document is serialized, then replaced by the raw text. */
const HOLE = '\u0000hole\u0000'

/**
 * A JSON-level edit of a .json file, or of one line of a .jsonl file; undefined when the file (or line) does not
 * parse, in which case the byte-level edits are the ones that damage it.
 */
export function applyJsonEdit(file: string, bytes: Buffer, edit: JsonEdit): Buffer | undefined {
  if (edit.kind === 'manifest-path' && file !== 'manifest.json') return undefined
  const jsonl = file.endsWith('.jsonl')
  if (!jsonl && !file.endsWith('.json')) return undefined
  const text = bytes.toString('utf8')
  const lines = jsonl ? text.split('\n') : [text]
  const nonEmpty = lines.flatMap((line, index) => (line.trim() === '' ? [] : [index]))
  if (nonEmpty.length === 0) return undefined
  const index = nonEmpty[edit.line % nonEmpty.length]!
  let edited: string | undefined
  try {
    // A JSONL line must stay one line; a .json file is laid out as the writer lays it out.
    edited = editJson(JSON.parse(lines[index]!) as Json, edit, jsonl ? undefined : 2)
  } catch {
    // Not JSON (an earlier edit broke it), or nested too deep for JSON.stringify (an earlier edit nested it).
    return undefined
  }
  if (edited === undefined) return undefined
  lines[index] = jsonl ? edited : `${edited}\n`
  return Buffer.from(lines.join('\n'), 'utf8')
}

function editJson(root: Json, edit: JsonEdit, indent: number | undefined): string | undefined {
  if (edit.kind === 'manifest-path') {
    const files = root !== null && typeof root === 'object' && !Array.isArray(root) ? root.files : undefined
    if (!Array.isArray(files) || files.length === 0) return undefined
    const entry = files[edit.entry % files.length]
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined
    entry.path = HOSTILE_PATHS[edit.to]!
    return JSON.stringify(root, null, indent)
  }
  // Walk down: `parent[key]` is the node the edit is about.
  const holder: { root: Json } = { root }
  let parent: Json = holder
  let key: string | number = 'root'
  for (const step of edit.path) {
    const node: Json = (parent as Record<string, Json>)[key]!
    if (node === null || typeof node !== 'object') break
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node)
    if (keys.length === 0) break
    parent = node
    key = keys[step % keys.length]!
  }
  const target = parent as Record<string | number, Json>
  const node = target[key]!
  let raw: string
  switch (edit.kind) {
    case 'replace':
      raw = NASTY_JSON[edit.nasty]!()
      break
    case 'renumber': {
      if (typeof node !== 'number') return undefined
      raw = [String(node + 1), String(-node - 1), String(node * 2 ** 53 + 1), '1e400'][edit.how]!
      break
    }
    case 'add-key': {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined
      const keys = Object.keys(node)
      const name = keys.length > 0 && edit.key % 3 !== 0 ? keys[edit.key % keys.length]! : '__proto__'
      const body = JSON.stringify(node)
      raw = `${body.slice(0, -1)}${body.length > 2 ? ',' : ''}${JSON.stringify(name)}:${NASTY_JSON[edit.nasty]!()}}`
      break
    }
    case 'remove': {
      if (parent === (holder as unknown as Json)) return undefined
      if (Array.isArray(parent)) parent.splice(key as number, 1)
      else delete target[key]
      return JSON.stringify(holder.root, null, indent)
    }
  }
  target[key] = HOLE
  return JSON.stringify(holder.root, null, indent).replace(JSON.stringify(HOLE), () => raw)
}
