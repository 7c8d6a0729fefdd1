import { z } from 'zod'
import {
  compareContains,
  compareExact,
  compareJson,
  compareNumber,
  compareRegex,
  compileRegex,
  errorMessage,
  finalAnswerSteps,
  isAgentEvalOpsError,
  JsonValue,
  type Comparison,
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

/** A grader bound to one task's expected value; `compare` is absent for `none`. */
export interface TaskGrader {
  type: GraderType
  compare?: (answer: string) => Comparison
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
  switch (spec.type) {
    case 'exact': {
      const want = textOf(spec, spec.value ?? expected)
      const opts = { trim: spec.trim, caseInsensitive: spec.case_insensitive }
      return { type: spec.type, compare: (answer) => compareExact(answer, want, opts) }
    }
    case 'contains': {
      const needle = textOf(spec, spec.value ?? expected)
      if (needle === '') {
        throw new GraderProblem(
          'the contains grader has an empty expected text, which every answer contains',
          'Give the task a non-empty `expected`, or the grader a `value`.',
        )
      }
      const opts = { caseInsensitive: spec.case_insensitive }
      return { type: spec.type, compare: (answer) => compareContains(answer, needle, opts) }
    }
    case 'regex': {
      const pattern = spec.pattern ?? expected
      if (typeof pattern !== 'string') {
        throw new GraderProblem(
          `the regex grader needs a pattern, and the task's expected value is ${describeValue(pattern)}`,
          'Give the grader a `pattern`, or the task an `expected` string holding the pattern.',
        )
      }
      let regex: RegExp
      try {
        regex = compileRegex(pattern, spec.flags)
      } catch (e) {
        const cause = isAgentEvalOpsError(e) && e.cause !== undefined ? `: ${errorMessage(e.cause)}` : ''
        throw new GraderProblem(
          `invalid regular expression /${pattern}/${spec.flags ?? ''}${cause}`,
          'Fix the pattern (a JavaScript RegExp source, without slashes) or its flags.',
        )
      }
      return { type: spec.type, compare: (answer) => compareRegex(answer, regex) }
    }
    case 'numeric': {
      const want = numberOf(spec.value ?? expected)
      const tolerance = { tolerance: spec.tolerance }
      return { type: spec.type, compare: (answer) => compareNumber(answer, want, tolerance) }
    }
    case 'json': {
      const want = spec.value !== undefined ? spec.value : expected
      if (want === undefined) {
        throw new GraderProblem(
          'the json grader needs an expected value, and the task has none',
          'Give the task an `expected` value (any JSON), or the grader a `value`.',
        )
      }
      return { type: spec.type, compare: (answer) => compareJson(answer, want) }
    }
    case 'none':
      return { type: spec.type }
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
  if (grader.compare === undefined) return { score: 1, passed: true, explanation: NOT_GRADED }
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
  const { passed, explanation, unparseable } = grader.compare(answer)
  if (passed) return { score: 1, passed, explanation, citations }
  const type = answer.trim() === '' ? 'no_answer' : unparseable ? 'unparseable' : 'wrong_answer'
  const finding: EvaluatorFinding = { type, message: explanation, citations }
  return { score: 0, passed, explanation, citations, findings: [finding] }
}
