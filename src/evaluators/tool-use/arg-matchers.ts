import { AgentEvalOpsError, canonicalJson, type JsonValue } from '../../core/index.ts'

/**
 * How a reference call's arguments are compared with an actual call's:
 * - `'exact'`: canonical JSON equality (key order is free, everything else must be equal);
 * - `'subset'`: every key the reference gives must match, extra actual keys are free (recursively);
 * - `{ tolerance }`: numbers may differ by at most `tolerance` (absolute), everything else exact;
 * - a function of the actual and the reference arguments (`undefined` when the reference gives none).
 */
export type ArgMatcher =
  | 'exact'
  | 'subset'
  | { tolerance: number }
  | ((actual: JsonValue, expected: JsonValue | undefined) => boolean)

// Float arithmetic in the agent or the dataset (0.1 + 0.2) must not turn an in-tolerance number into a mismatch.
const EPSILON = 1e-9

type JsonRecord = { [key: string]: JsonValue }

function isRecord(v: JsonValue | undefined): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function hasOwn(obj: JsonRecord, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key)
}

function exactEqual(actual: JsonValue, expected: JsonValue): boolean {
  return canonicalJson(actual) === canonicalJson(expected)
}

/**
 * Objects: every expected key present and matching, recursively. Arrays keep their length and order (a reference
 * list is a list, not a set of hints), but the objects inside them are compared as subsets too.
 */
export function subsetMatch(actual: JsonValue, expected: JsonValue): boolean {
  if (isRecord(expected)) {
    if (!isRecord(actual)) return false
    return Object.entries(expected).every(
      ([key, value]) => hasOwn(actual, key) && subsetMatch(actual[key]!, value),
    )
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((value, i) => subsetMatch(actual[i]!, value))
    )
  }
  return exactEqual(actual, expected)
}

/** Same shape required (same keys, same lengths); only numbers get the slack. */
export function toleranceMatch(actual: JsonValue, expected: JsonValue, tolerance: number): boolean {
  if (typeof expected === 'number') {
    return typeof actual === 'number' && Math.abs(actual - expected) <= tolerance + EPSILON
  }
  if (isRecord(expected)) {
    if (!isRecord(actual)) return false
    const keys = Object.keys(expected)
    if (keys.length !== Object.keys(actual).length) return false
    return keys.every((key) => hasOwn(actual, key) && toleranceMatch(actual[key]!, expected[key]!, tolerance))
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((value, i) => toleranceMatch(actual[i]!, value, tolerance))
    )
  }
  return exactEqual(actual, expected)
}

/**
 * Whether `actual` matches the reference arguments. A reference without arguments accepts any, except for a custom
 * function, which always decides (it may want to check the arguments on its own terms).
 */
export function argsMatch(
  matcher: ArgMatcher | undefined,
  actual: JsonValue,
  expected: JsonValue | undefined,
): boolean {
  if (typeof matcher === 'function') return matcher(actual, expected) === true
  if (expected === undefined) return true
  if (matcher === undefined || matcher === 'exact') return exactEqual(actual, expected)
  if (matcher === 'subset') return subsetMatch(actual, expected)
  return toleranceMatch(actual, expected, matcher.tolerance)
}

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const MATCHER_HINT =
  "An argument matcher is 'exact', 'subset', { tolerance: number >= 0 } or a function (actual, expected) => boolean."

/**
 * Checks matchers given as configuration (they may come from untyped JSON or JavaScript), so a typo is a config
 * error when the evaluator is created, not a silent "exact" at judging time.
 */
export function validateArgMatchers(where: string, matchers: unknown): void {
  if (matchers === undefined) return
  if (typeof matchers !== 'object' || matchers === null || Array.isArray(matchers)) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${where}: args must be an object of tool name → matcher, got ${describe(matchers)}`,
      { hint: MATCHER_HINT },
    )
  }
  for (const [tool, matcher] of Object.entries(matchers as Record<string, unknown>)) {
    if (matcher === 'exact' || matcher === 'subset' || typeof matcher === 'function') continue
    if (typeof matcher === 'object' && matcher !== null && 'tolerance' in matcher) {
      const { tolerance } = matcher
      if (typeof tolerance === 'number' && tolerance >= 0) continue
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${where}: the tolerance for tool "${tool}" must be a number >= 0, got ${describe(tolerance)}`,
        { hint: MATCHER_HINT },
      )
    }
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${where}: unknown argument matcher for tool "${tool}": ${describe(matcher)}`,
      { hint: MATCHER_HINT },
    )
  }
}
