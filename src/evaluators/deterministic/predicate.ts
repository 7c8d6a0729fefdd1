import { AgentEvalOpsError, finalAnswerSteps, type Evaluator, type TrialView } from '../../core/index.ts'

/** What a predicate may return: a bare verdict, or a verdict with its own score and words. */
export type PredicateResult = boolean | { passed: boolean; score?: number; explanation?: string }

export interface PredicateOptions {
  id: string
  /**
   * Gets the final answer (null when the agent gave none) and the whole trial. Throwing means "could not judge"
   * and is recorded as an evaluator error, so return false for a wrong answer.
   */
  test: (answer: string | null, view: TrialView) => PredicateResult | Promise<PredicateResult>
}

/** A custom check in a few lines, scored like the built-in ones and cited at the final answer. */
export function predicate(opts: PredicateOptions): Evaluator {
  if (typeof opts.test !== 'function' || !opts.id) {
    throw new AgentEvalOpsError('CONFIG_INVALID', 'predicate: give an id and a test function', {
      hint: "predicate({ id: 'even', test: (answer) => Number(answer) % 2 === 0 })",
    })
  }
  return {
    id: opts.id,
    kind: 'deterministic',
    async evaluate(view) {
      const raw = await opts.test(view.result.finalAnswer, view)
      const result = typeof raw === 'boolean' ? { passed: raw } : raw
      if (typeof result !== 'object' || result === null || typeof result.passed !== 'boolean') {
        throw new AgentEvalOpsError(
          'CONFIG_INVALID',
          `predicate ${JSON.stringify(opts.id)} returned ${JSON.stringify(raw)}; expected a boolean or { passed, score?, explanation? }`,
        )
      }
      return {
        score: result.score ?? (result.passed ? 1 : 0),
        passed: result.passed,
        explanation: result.explanation ?? `predicate ${result.passed ? 'holds' : 'does not hold'}`,
        citations: finalAnswerSteps(view.events),
      }
    },
  }
}
