import * as z from 'zod'
import {
  compareAnswer,
  compileRegex,
  errorMessage,
  finalAnswerSteps,
  isAgentEvalOpsError,
  JsonValue,
  parseExpected,
  type AnswerMatch,
  type EvaluatorFinding,
  type GradeOutput,
  type TrialView,
} from '../../core/index.ts'

/** Absolute tolerance of the numeric grader when the spec gives none: equal up to float noise. */
export const DEFAULT_NUMERIC_TOLERANCE = 1e-9

/**
 * How a dataset task's final answer is graded, as written in the dataset file or in the benchmark's options
 * (snake_case, like the rest of a YAML RunConfig). The expected value is the task's `expected`, unless the spec
 * gives its own (`value`, or `pattern` for regex).
 */
export const GraderSpec = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('exact'),
    value: z.union([z.string(), z.number()]).optional(),
    /** Trim surrounding whitespace of both sides before comparing. */
    trim: z.boolean().default(true),
    case_insensitive: z.boolean().default(false),
  }),
  z.strictObject({
    type: z.literal('contains'),
    value: z.union([z.string(), z.number()]).optional(),
    case_insensitive: z.boolean().default(false),
  }),
  z.strictObject({
    type: z.literal('regex'),
    /** A JavaScript RegExp source without slashes; default: the task's `expected` string. */
    pattern: z.string().optional(),
    flags: z.string().optional(),
  }),
  z.strictObject({
    type: z.literal('numeric'),
    value: z.union([z.number(), z.string()]).optional(),
    /** Largest allowed |answer − expected|. */
    tolerance: z.number().nonnegative().default(DEFAULT_NUMERIC_TOLERANCE),
    /** Largest allowed |answer − expected| / |expected|; a pass on either tolerance passes. */
    relative_tolerance: z.number().nonnegative().optional(),
  }),
  z.strictObject({
    type: z.literal('json'),
    value: JsonValue.optional(),
  }),
  z.strictObject({ type: z.literal('none') }),
])
export type GraderSpec = z.output<typeof GraderSpec>
export type GraderSpecInput = z.input<typeof GraderSpec>
export type GraderType = GraderSpec['type']

export const GRADER_TYPES: readonly GraderType[] = ['exact', 'contains', 'regex', 'numeric', 'json', 'none']

/**
 * A grader bound to one task's expected value: the match it declares (absent for `none`), which also rides on the
 * task as `task.match`, so matchesExpected() judges the task the same way.
 */
export interface TaskGrader {
  type: GraderType
  match?: AnswerMatch
}

/** Why a grader cannot grade a task (no usable expected value, a bad pattern): the dataset's fault. */
export class GraderProblem extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message)
  }
}

function describeValue(value: JsonValue | undefined): string {
  if (value === undefined) return 'none'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'a mapping' : `${typeof value} ${JSON.stringify(value)}`
}

function textOf(spec: { type: GraderType }, value: JsonValue | undefined): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  throw new GraderProblem(
    `the ${spec.type} grader needs the expected answer as a string or number, and the task has ${describeValue(value)}`,
    'Give the task an `expected` string (or number), or the grader a `value`.',
  )
}

function numberOf(value: JsonValue | undefined): number {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
  if (Number.isFinite(n)) return n
  throw new GraderProblem(
    `the numeric grader needs the expected answer as a number, and the task has ${describeValue(value)}`,
    'Give the task an `expected` number (or numeric string), or the grader a `value`.',
  )
}

/**
 * Binds a grader spec to a task's expected value, checking it can grade at all (an exact grader needs text, a
 * regex must compile), so a broken dataset fails when it is loaded, not as a failed trial. Throws GraderProblem.
 */
export function bindGrader(spec: GraderSpec, expected: JsonValue | undefined): TaskGrader {
  const match = matchOf(spec, expected)
  return match === undefined ? { type: spec.type } : { type: spec.type, match }
}

function matchOf(spec: GraderSpec, expected: JsonValue | undefined): AnswerMatch | undefined {
  switch (spec.type) {
    case 'exact': {
      const value = textOf(spec, spec.value ?? expected)
      return { type: 'exact', value, trim: spec.trim, caseInsensitive: spec.case_insensitive }
    }
    case 'contains': {
      const value = textOf(spec, spec.value ?? expected)
      if (value === '') {
        throw new GraderProblem(
          'the contains grader has an empty expected text, which every answer contains',
          'Give the task a non-empty `expected`, or the grader a `value`.',
        )
      }
      return { type: 'contains', value, caseInsensitive: spec.case_insensitive }
    }
    case 'regex': {
      const pattern = spec.pattern ?? expected
      if (typeof pattern !== 'string') {
        throw new GraderProblem(
          `the regex grader needs a pattern, and the task's expected value is ${describeValue(pattern)}`,
          'Give the grader a `pattern`, or the task an `expected` string holding the pattern.',
        )
      }
      try {
        compileRegex(pattern, spec.flags)
      } catch (e) {
        const cause = isAgentEvalOpsError(e) && e.cause !== undefined ? `: ${errorMessage(e.cause)}` : ''
        throw new GraderProblem(
          `invalid regular expression /${pattern}/${spec.flags ?? ''}${cause}`,
          'Fix the pattern (a JavaScript RegExp source, without slashes) or its flags.',
        )
      }
      return { type: 'regex', pattern, flags: spec.flags ?? '' }
    }
    case 'numeric': {
      const value = numberOf(spec.value ?? expected)
      const relative = spec.relative_tolerance
      return {
        type: 'numeric',
        value,
        tolerance: spec.tolerance,
        ...(relative === undefined ? {} : { relativeTolerance: relative }),
      }
    }
    case 'json': {
      const value = spec.value !== undefined ? spec.value : expected
      if (value === undefined) {
        throw new GraderProblem(
          'the json grader needs an expected value, and the task has none',
          'Give the task an `expected` value (any JSON), or the grader a `value`.',
        )
      }
      return { type: 'json', value }
    }
    case 'none':
      return undefined
  }
}

const OPT_OUT_HINT =
  'Give the task (or the benchmark) a `grader`, or write `grader: { type: none }` when another evaluator checks `expected`.'

/**
 * The grader of a task that names none when the benchmark names no default either: a task that gives `expected`
 * means it to be checked. Its shape says how, as matchesExpected() reads it: a string is matched exactly (trimmed,
 * case-sensitive), a number numerically, `{ contains }`, `{ regex, flags? }`, `{ json }` and
 * `{ number, tolerance?, relativeTolerance? }` by that grader. No `expected`: not graded. Any other shape has no
 * grader that could check it, which is the dataset's to resolve (GraderProblem), never a silent pass.
 */
export function impliedGrader(expected: JsonValue | undefined): GraderSpec {
  if (expected === undefined) return { type: 'none' }
  const expectation = parseExpected(expected)
  switch (expectation?.kind) {
    case 'exact':
      return GraderSpec.parse({ type: 'exact' })
    case 'contains':
      return GraderSpec.parse({ type: 'contains', value: expectation.value })
    case 'regex':
      return GraderSpec.parse({ type: 'regex', pattern: expectation.pattern, flags: expectation.flags })
    case 'json':
      return GraderSpec.parse({ type: 'json', value: expectation.value })
    case 'number':
      return GraderSpec.parse({
        type: 'numeric',
        value: expectation.expected,
        ...(expectation.tolerance === undefined ? {} : { tolerance: expectation.tolerance }),
        ...(expectation.relativeTolerance === undefined
          ? {}
          : { relative_tolerance: expectation.relativeTolerance }),
      })
    case 'json_schema':
      throw new GraderProblem(
        'its expected value is a { jsonSchema } expectation, which no dataset grader checks, and it names no grader',
        OPT_OUT_HINT,
      )
    case undefined:
      throw new GraderProblem(
        `its expected value (${describeValue(expected)}) names no way to match an answer, and it names no grader`,
        `${OPT_OUT_HINT} A string is matched exactly, a number numerically; { contains }, { regex }, { json } and { number } name their match.`,
      )
  }
}

/** The explanation of a task that is not graded (see gradeTrial). */
export const NOT_GRADED = 'this task has no grader'

/**
 * Grades one trial's final answer. A task whose grader is `none` passes with score 1 and says it was not graded:
 * grade() runs for every task of a benchmark that has any grader, and a task that asks for no grading must not
 * fail for it (its evaluators, if any, still judge it). A benchmark with no grader at all has no grade() — see
 * datasetBenchmark.
 */
export function gradeTrial(grader: TaskGrader, view: TrialView): GradeOutput {
  const { match } = grader
  if (match === undefined) return { score: 1, passed: true, explanation: NOT_GRADED }
  const citations = finalAnswerSteps(view.events)
  const answer = view.result.finalAnswer
  if (answer === null) {
    const message = 'the agent gave no final answer'
    return {
      score: 0,
      passed: false,
      explanation: 'no final answer',
      citations,
      findings: [{ type: 'no_answer', message, citations }],
    }
  }
  const { passed, explanation, unparseable } = compareAnswer(answer, match)
  if (passed) return { score: 1, passed, explanation, citations }
  const type = answer.trim() === '' ? 'no_answer' : unparseable ? 'unparseable' : 'wrong_answer'
  const finding: EvaluatorFinding = { type, message: explanation, citations }
  return { score: 0, passed, explanation, citations, findings: [finding] }
}
