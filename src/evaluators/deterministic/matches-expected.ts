import {
  compareAnswer,
  compareContains,
  compareExact,
  compareJson,
  compareNumber,
  compareRegex,
  compileRegex,
  describeMatch,
  type AnswerMatch,
  type Comparison,
  type Evaluator,
  type EvaluatorContext,
  type TaskSpec,
} from '../../core/index.ts'
import { scoreAnswer } from './answer.ts'
import { readExpectation, type Expectation } from './expectation.ts'
import { compileJsonSchema } from '../json-schema.ts'
import { compareJsonSchema, SCHEMA_HINT } from './json-schema.ts'

export interface MatchesExpectedOptions {
  id?: string
  /**
   * Applies to exact and contains matches. Where the task's benchmark declares a case rule of its own
   * (`task.match`, a dataset grader) and this one differs, this one is used and the run warns once that the two
   * checks of `expected` disagree.
   */
  caseInsensitive?: boolean
}

function compare(answer: string, expectation: Expectation, opts: MatchesExpectedOptions): Comparison {
  switch (expectation.kind) {
    case 'exact':
      return compareExact(answer, expectation.value, opts)
    case 'contains':
      return compareContains(answer, expectation.value, opts)
    case 'regex':
      return compareRegex(answer, compileRegex(expectation.pattern, expectation.flags))
    case 'json':
      return compareJson(answer, expectation.value)
    case 'number':
      return compareNumber(answer, expectation.expected, expectation)
    case 'json_schema':
      return compareJsonSchema(
        answer,
        compileJsonSchema(expectation.schema, 'task.expected.jsonSchema: invalid JSON Schema', SCHEMA_HINT),
      )
  }
}

/** The declared match with this evaluator's explicit options applied; `overridden` when they changed it. */
function applyOptions(
  declared: AnswerMatch,
  opts: MatchesExpectedOptions,
): { match: AnswerMatch; overridden: boolean } {
  const { caseInsensitive } = opts
  if (caseInsensitive === undefined || (declared.type !== 'exact' && declared.type !== 'contains'))
    return { match: declared, overridden: false }
  if (declared.caseInsensitive === caseInsensitive) return { match: declared, overridden: false }
  return { match: { ...declared, caseInsensitive }, overridden: true }
}

/**
 * One evaluator for a mixed dataset: each task's `expected` shape decides how its answer is matched — unless the
 * task's benchmark declares the match (`task.match`: a dataset task's grader, e.g. `contains`), which it then
 * follows, so that the benchmark's `<id>-grade` and this score never judge one answer two ways unannounced.
 */
export function matchesExpected(opts: MatchesExpectedOptions = {}): Evaluator {
  const id = opts.id ?? 'matches-expected'
  // Once per run, not per trial: the evaluator lives as long as the run's eval file.
  const warned = new Set<string>()
  const warnDisagreement = (
    task: TaskSpec,
    declared: AnswerMatch,
    used: AnswerMatch,
    ctx?: EvaluatorContext,
  ) => {
    if (warned.has(task.benchmark)) return
    warned.add(task.benchmark)
    const message =
      `two checks of expected disagree on benchmark ${JSON.stringify(task.benchmark)} (first seen on task ` +
      `${JSON.stringify(task.id)}): its grader matches ${describeMatch(declared)}, evaluator ` +
      `${JSON.stringify(id)} matches ${describeMatch(used)} (its caseInsensitive option); their pass rates can ` +
      'differ. Drop the option to follow the grader, or change the grader.'
    ctx?.warn?.(message)
    console.warn(`agentevalops: ${message}`)
  }
  return {
    id,
    kind: 'deterministic',
    evaluate(view, ctx) {
      const declared = view.task.match
      if (declared !== undefined) {
        const { match, overridden } = applyOptions(declared, opts)
        if (overridden) warnDisagreement(view.task, declared, match, ctx)
        const how = overridden
          ? `matched ${describeMatch(match)}`
          : `matched as the benchmark declares: ${match.type}`
        return scoreAnswer(view, (answer) => {
          const c = compareAnswer(answer, match)
          return { ...c, explanation: `${c.explanation} (${how})` }
        })
      }
      // Read before scoring, so a task without a usable expectation is a config error even when there is no answer.
      const expectation = readExpectation(view.task)
      return scoreAnswer(view, (answer) => compare(answer, expectation, opts))
    },
  }
}
