import { canonicalJson, type JsonValue } from '../core/index.ts'

export interface Difference {
  /** e.g. `messages[2].content[0].text`, or `(request)` for the whole value. */
  path: string
  recorded: JsonValue | undefined
  now: JsonValue | undefined
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Where two JSON values differ, leaf by leaf, up to `limit` differences (key order does not count). */
export function jsonDiff(
  recorded: JsonValue | undefined,
  now: JsonValue | undefined,
  limit = 20,
): Difference[] {
  const out: Difference[] = []
  const walk = (a: JsonValue | undefined, b: JsonValue | undefined, path: string): void => {
    if (out.length >= limit) return
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`)
      return
    }
    if (isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
      for (const key of keys) walk(a[key], b[key], path === '' ? key : `${path}.${key}`)
      return
    }
    if (canonicalJson(a ?? null) !== canonicalJson(b ?? null) || (a === undefined) !== (b === undefined)) {
      out.push({ path: path || '(request)', recorded: a, now: b })
    }
  }
  walk(recorded, now, '')
  return out
}

const MAX_QUOTE = 80

function quote(v: JsonValue | undefined): string {
  if (v === undefined) return '(absent)'
  const text = JSON.stringify(v)
  return text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text
}

const CONTEXT = 30

/**
 * Two long strings usually share a long start (a prompt template): show them from a little before the first
 * character where they part, which is where the reader needs to look.
 */
function quotePair(a: string, b: string): [string, string] {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  const from = Math.max(0, i - CONTEXT)
  const cut = (s: string) => {
    const part = s.slice(from, from + MAX_QUOTE)
    return `${from > 0 ? '…' : ''}${JSON.stringify(part)}${from + MAX_QUOTE < s.length ? '…' : ''}`
  }
  return [cut(a), cut(b)]
}

/** One line per difference: `messages[1].content: "old" → "new"`. */
export function describeDiff(differences: readonly Difference[]): string[] {
  return differences.map((d) => {
    const [recorded, now] =
      typeof d.recorded === 'string' && typeof d.now === 'string'
        ? quotePair(d.recorded, d.now)
        : [quote(d.recorded), quote(d.now)]
    return `${d.path}: ${recorded} → ${now}`
  })
}
