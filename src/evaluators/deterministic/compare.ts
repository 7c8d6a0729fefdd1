import { AgentEvalOpsError, canonicalJson, type JsonValue } from '../../core/index.ts'
import { quote, type Comparison } from './answer.ts'

export interface TextOptions {
  caseInsensitive?: boolean
}

function fold(text: string, opts: TextOptions): string {
  return opts.caseInsensitive ? text.toLowerCase() : text
}

/** Whitespace around an answer is formatting, not content, so it is trimmed unless `trim: false`. */
export function compareExact(
  answer: string,
  expected: string,
  opts: TextOptions & { trim?: boolean },
): Comparison {
  const norm = (s: string) => fold(opts.trim === false ? s : s.trim(), opts)
  const passed = norm(answer) === norm(expected)
  return {
    passed,
    explanation: passed
      ? `answer equals ${quote(expected)}`
      : `expected ${quote(expected)}, got ${quote(answer)}`,
  }
}

export function compareContains(answer: string, needle: string, opts: TextOptions): Comparison {
  const passed = fold(answer, opts).includes(fold(needle, opts))
  return {
    passed,
    explanation: passed
      ? `answer contains ${quote(needle)}`
      : `expected the answer to contain ${quote(needle)}, got ${quote(answer)}`,
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
      : `expected a match for ${String(regex)}, got ${quote(answer)}`,
  }
}

/** Parses the answer as JSON and compares canonically, so key order does not matter but everything else does. */
export function compareJson(answer: string, expected: JsonValue): Comparison {
  let parsed: unknown
  try {
    parsed = JSON.parse(answer)
  } catch {
    return { passed: false, explanation: `answer is not valid JSON: ${quote(answer)}` }
  }
  const want = canonicalJson(expected)
  const got = canonicalJson(parsed)
  const passed = want === got
  return {
    passed,
    explanation: passed
      ? `answer is JSON equal to ${quote(want)}`
      : `expected JSON ${quote(want)}, got ${quote(got)}`,
  }
}
