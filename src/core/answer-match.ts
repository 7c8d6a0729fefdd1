/**
 * Pure comparisons of an agent's final answer with what was expected: exact text, containment, a regular
 * expression, a number within tolerance, canonical JSON equality. The deterministic evaluators and the benchmarks'
 * own graders (src/benchmarks/dataset) share them, so a "42" is judged the same way wherever it is judged.
 */
import { canonicalJson } from './checksum.ts'
import { AgentEvalOpsError } from './errors.ts'
import type { JsonValue } from './json.ts'
import type { AnswerMatch, TraceEvent } from './schemas.ts'

/** What a comparison decides, and why in a few words. */
export interface Comparison {
  passed: boolean
  explanation: string
  /** Set when the answer could not be read as what was asked for (no number in it, not JSON). */
  unparseable?: boolean
}

const MAX_QUOTE = 120

/** Quotes a value for an explanation, cut short so one huge answer cannot bloat scores.json. */
export function quoteClipped(value: string): string {
  const text = value.length > MAX_QUOTE ? `${value.slice(0, MAX_QUOTE)}… (${value.length} chars)` : value
  return JSON.stringify(text)
}

/** The step of the last final answer: that is the answer the result carries. */
export function finalAnswerSteps(events: readonly TraceEvent[]): number[] {
  const last = events.filter((e) => e.kind === 'agent.final_answer').at(-1)
  return last ? [last.step] : []
}

export interface TextMatchOptions {
  caseInsensitive?: boolean
}

function fold(text: string, opts: TextMatchOptions): string {
  return opts.caseInsensitive ? text.toLowerCase() : text
}

/** Whitespace around an answer is formatting, not content, so it is trimmed unless `trim: false`. */
export function compareExact(
  answer: string,
  expected: string,
  opts: TextMatchOptions & { trim?: boolean },
): Comparison {
  const norm = (s: string) => fold(opts.trim === false ? s : s.trim(), opts)
  const passed = norm(answer) === norm(expected)
  return {
    passed,
    explanation: passed
      ? `answer equals ${quoteClipped(expected)}`
      : `expected ${quoteClipped(expected)}, got ${quoteClipped(answer)}`,
  }
}

export function compareContains(answer: string, needle: string, opts: TextMatchOptions): Comparison {
  const passed = fold(answer, opts).includes(fold(needle, opts))
  return {
    passed,
    explanation: passed
      ? `answer contains ${quoteClipped(needle)}`
      : `expected the answer to contain ${quoteClipped(needle)}, got ${quoteClipped(answer)}`,
  }
}

/** Compiles once, at configuration time where possible, so a bad pattern is a config error and not a failed trial. */
export function compileRegex(pattern: string | RegExp, flags = ''): RegExp {
  if (pattern instanceof RegExp) return pattern
  try {
    return new RegExp(pattern, flags)
  } catch (e) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `invalid regular expression /${pattern}/${flags}`, {
      hint: 'Fix the pattern (it is a JavaScript RegExp source, without slashes).',
      cause: e,
    })
  }
}

export function compareRegex(answer: string, regex: RegExp): Comparison {
  // A global or sticky regex keeps lastIndex between test() calls; reset it so every trial is judged alike.
  regex.lastIndex = 0
  const passed = regex.test(answer)
  return {
    passed,
    explanation: passed
      ? `answer matches ${String(regex)}`
      : `expected a match for ${String(regex)}, got ${quoteClipped(answer)}`,
  }
}

/** The answer as JSON, or the failed comparison that says it is none. */
export function parseJsonAnswer(
  answer: string,
): { ok: true; value: unknown } | { ok: false; failed: Comparison } {
  try {
    return { ok: true, value: JSON.parse(answer) }
  } catch {
    return {
      ok: false,
      failed: {
        passed: false,
        unparseable: true,
        explanation: `answer is not valid JSON: ${quoteClipped(answer)}`,
      },
    }
  }
}

/** Parses the answer as JSON and compares canonically, so key order does not matter but everything else does. */
export function compareJson(answer: string, expected: JsonValue): Comparison {
  const json = parseJsonAnswer(answer)
  if (!json.ok) return json.failed
  const parsed = json.value
  const want = canonicalJson(expected)
  const got = canonicalJson(parsed)
  const passed = want === got
  return {
    passed,
    explanation: passed
      ? `answer is JSON equal to ${quoteClipped(want)}`
      : `expected JSON ${quoteClipped(want)}, got ${quoteClipped(got)}`,
  }
}

export interface NumericTolerance {
  /** Largest allowed |answer − expected| (default 0). */
  tolerance?: number
  /** Largest allowed |answer − expected| / |expected|; a pass on either tolerance passes. */
  relativeTolerance?: number
}

// Thousands separators are allowed only in groups of three, so "1,2" stays two numbers and "1,234" is one.
const NUMBER = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?/g

/**
 * The number an answer gives: the whole answer when it is one number, else the last number in it. Agents state
 * the result after their working ("… so the total is 42"), which is why the last one is taken, as GSM8K graders do.
 */
export function extractNumber(answer: string): { value: number; text: string } | undefined {
  const whole = answer.trim()
  if (whole !== '' && Number.isFinite(Number(whole))) return { value: Number(whole), text: whole }
  const last = answer.match(NUMBER)?.at(-1)
  if (last === undefined) return undefined
  const value = Number(last.replaceAll(',', ''))
  return Number.isFinite(value) ? { value, text: last } : undefined
}

export function compareNumber(answer: string, expected: number, t: NumericTolerance): Comparison {
  const found = extractNumber(answer)
  if (found === undefined)
    return {
      passed: false,
      unparseable: true,
      explanation: `no number in the answer ${quoteClipped(answer)}`,
    }
  const diff = Math.abs(found.value - expected)
  const absolute = t.tolerance ?? 0
  // A hair of slack for binary floats: 0.1 + 0.2 must equal 0.3 at tolerance 0.
  const slack = 1e-12 * Math.max(1, Math.abs(expected))
  const relativeOk =
    t.relativeTolerance !== undefined && diff <= t.relativeTolerance * Math.abs(expected) + slack
  const passed = diff <= absolute + slack || relativeOk
  const within = [
    `±${absolute}`,
    ...(t.relativeTolerance === undefined ? [] : [`±${t.relativeTolerance * 100}%`]),
  ].join(' or ')
  return {
    passed,
    explanation: passed
      ? `answer ${found.text} is within ${within} of ${expected}`
      : `expected ${expected} (${within}), got ${found.text} (off by ${diff})`,
  }
}

/** Compares an answer with a declared match: the one code path of a dataset grader and of matchesExpected(). */
export function compareAnswer(answer: string, match: AnswerMatch): Comparison {
  switch (match.type) {
    case 'exact':
      return compareExact(answer, match.value, match)
    case 'contains':
      return compareContains(answer, match.value, match)
    case 'regex':
      return compareRegex(answer, compileRegex(match.pattern, match.flags))
    case 'numeric':
      return compareNumber(answer, match.value, match)
    case 'json':
      return compareJson(answer, match.value)
  }
}

/** A match in a few words for messages: `contains (case-insensitive)`, `exact (trimmed, case-sensitive)`. */
export function describeMatch(match: AnswerMatch): string {
  const cased = (m: { caseInsensitive: boolean }) =>
    m.caseInsensitive ? 'case-insensitive' : 'case-sensitive'
  switch (match.type) {
    case 'exact':
      return `exact (${match.trim ? 'trimmed' : 'untrimmed'}, ${cased(match)})`
    case 'contains':
      return `contains (${cased(match)})`
    case 'regex':
      return `regex /${match.pattern}/${match.flags}`
    case 'numeric':
      return `numeric (±${match.tolerance}${match.relativeTolerance === undefined ? '' : ` or ±${match.relativeTolerance * 100}%`})`
    case 'json':
      return 'json'
  }
}

/**
 * The shapes `task.expected` may take: a plain string is an exact answer, a plain number a numeric one;
 * `{ contains }`, `{ regex, flags? }`, `{ json }`, `{ number, tolerance?, relativeTolerance? }` and
 * `{ jsonSchema }` say how else to match. One parser, so every evaluator and the dataset benchmark's default
 * grading read a task the same way.
 */
export type Expectation =
  | { kind: 'exact'; value: string }
  | { kind: 'contains'; value: string }
  | { kind: 'regex'; pattern: string; flags: string }
  | { kind: 'json'; value: JsonValue }
  | { kind: 'number'; expected: number; tolerance?: number; relativeTolerance?: number }
  | { kind: 'json_schema'; schema: { [key: string]: JsonValue } }

function isJsonObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Returns undefined when the shape is not one we know, so callers can fall back or fail with their own words. */
export function parseExpected(expected: JsonValue | undefined): Expectation | undefined {
  if (typeof expected === 'string') return { kind: 'exact', value: expected }
  if (typeof expected === 'number') return { kind: 'number', expected }
  if (!isJsonObject(expected)) return undefined
  if (typeof expected.contains === 'string') return { kind: 'contains', value: expected.contains }
  if (typeof expected.regex === 'string') {
    const flags = typeof expected.flags === 'string' ? expected.flags : ''
    return { kind: 'regex', pattern: expected.regex, flags }
  }
  if ('json' in expected) return { kind: 'json', value: expected.json ?? null }
  if (typeof expected.number === 'number') {
    const { tolerance, relativeTolerance } = expected
    return {
      kind: 'number',
      expected: expected.number,
      ...(typeof tolerance === 'number' ? { tolerance } : {}),
      ...(typeof relativeTolerance === 'number' ? { relativeTolerance } : {}),
    }
  }
  if (isJsonObject(expected.jsonSchema)) return { kind: 'json_schema', schema: expected.jsonSchema }
  return undefined
}
