import { errorMessage, isPlainValue } from '../core/index.ts'
import { describeIssues } from './findings.ts'
import { MAX_JSON_DEPTH } from './limits.ts'

export type JsonText = { ok: true; value: unknown } | { ok: false; problem: string }

/**
 * JSON.parse for text from a bundle. JSON.parse itself copes with any nesting, but everything after it (schema
 * checks, JSON.stringify) recurses once per level, so a document deeper than MAX_JSON_DEPTH is refused here.
 */
export function parseJsonText(text: string): JsonText {
  const parsed = parseJsonLine(text)
  return parsed.ok ? { ok: true, value: parsed.value } : parsed
}

/**
 * parseJsonText, and whether the value is plain (isPlainValue): then it is known to hold no non-finite number
 * either, and a caller need not look for one.
 */
export function parseJsonLine(
  text: string,
): { ok: true; value: unknown; plain: boolean } | { ok: false; problem: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { ok: false, problem: `not valid JSON (${errorMessage(e)})` }
  }
  if (isPlainValue(value, MAX_JSON_DEPTH)) return { ok: true, value, plain: true }
  // Each level takes at least two characters ("[]"), so short text needs no walk.
  if (text.length > 2 * MAX_JSON_DEPTH && deeperThan(value, MAX_JSON_DEPTH)) {
    return { ok: false, problem: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` }
  }
  return { ok: true, value, plain: false }
}

/** Iterative on purpose: the point is to measure depth without using the stack for it. */
export function deeperThan(root: unknown, max: number): boolean {
  if (typeof root !== 'object' || root === null) return false
  const stack: { node: object; depth: number }[] = [{ node: root, depth: 1 }]
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.depth > max) return true
    const { node, depth } = item
    if (Array.isArray(node)) {
      for (const child of node as unknown[]) {
        if (typeof child === 'object' && child !== null) stack.push({ node: child, depth: depth + 1 })
      }
    } else {
      for (const key of Object.keys(node)) {
        const child = (node as Record<string, unknown>)[key]
        if (typeof child === 'object' && child !== null) stack.push({ node: child, depth: depth + 1 })
      }
    }
  }
  return false
}

type IssueList = Parameters<typeof describeIssues>[0]

export interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: IssueList } }
}

export type SchemaResult<T> = { ok: true; data: T } | { ok: false; problem: string }

/**
 * A schema check that cannot throw. parseJsonText keeps nesting far below what the schemas' recursion can take,
 * but a caller already deep in its own stack might still run out: that is reported, not thrown.
 */
export function checkSchema<T>(schema: Schema<T>, value: unknown): SchemaResult<T> {
  let parsed: ReturnType<Schema<T>['safeParse']>
  try {
    parsed = schema.safeParse(value)
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, problem: `too deeply nested to check (${e.message})` }
    throw e
  }
  return parsed.success
    ? { ok: true, data: parsed.data }
    : { ok: false, problem: describeIssues(parsed.error.issues) }
}

/**
 * The path (e.g. `trials[0].scores[1].citations[0]`) of the first number in a parsed document that is not finite,
 * or undefined. JSON has no Infinity, but JSON.parse turns a literal too large for a double (`1e400`) into one, and
 * a schema that accepts any number lets it through into sums and comparisons. Iterative, like deeperThan.
 */
export function nonFinitePath(root: unknown): string | undefined {
  const stack: { node: unknown; path: string }[] = [{ node: root, path: '' }]
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { node, path } = item
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return path === '' ? '(the value)' : path
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child: unknown = node[i]
        if (holdsNumbers(child)) stack.push({ node: child, path: `${path}[${i}]` })
      }
    } else if (typeof node === 'object' && node !== null) {
      const keys = Object.keys(node)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const child = (node as Record<string, unknown>)[key]
        if (holdsNumbers(child))
          stack.push({ node: child, path: path === '' ? clipKey(key) : `${path}.${clipKey(key)}` })
      }
    }
  }
  return undefined
}

/** Only numbers and containers can be or hold a non-finite number: strings and the like need no path built. */
function holdsNumbers(value: unknown): boolean {
  return typeof value === 'number' || (typeof value === 'object' && value !== null)
}

/** Keys come from the file: a hostile one must not turn a one-line finding into megabytes. */
function clipKey(key: string): string {
  return key.length <= 64 ? key : `${key.slice(0, 64)}…`
}
