import type { AgentResult, EvaluatorScore, PolicyVerdict, TrialOutcome } from '../core/index.ts'
import { isLimitTermination } from './limits.ts'

export interface OutcomeInput {
  /** Null when the trial never ran (prepare failed). */
  result: AgentResult | null
  scores: readonly EvaluatorScore[]
  verdicts: readonly PolicyVerdict[]
  /** The harness itself failed (an evaluator threw, the trace could not be written): the result can't be trusted. */
  harnessFailed: boolean
}

/**
 * One outcome per trial, the most serious cause first: a trial that didn't run, or whose result we can't trust,
 * must never be counted as a pass or an agent failure.
 */
export function classifyOutcome(input: OutcomeInput): TrialOutcome {
  const { result } = input
  if (result === null) return 'not_evaluated'
  if (input.harnessFailed || result.terminatedBy === 'infra_failure') return 'infra_failure'
  if (result.terminatedBy === 'interrupted') return 'interrupted'
  if (result.terminatedBy === 'agent_error') return 'agent_error'
  if (isLimitTermination(result.terminatedBy)) return 'limit_exceeded'
  if (input.verdicts.some((v) => v.verdict === 'FAIL')) return 'policy_violation'
  if (!result.success || input.scores.some((s) => !s.passed)) return 'failed'
  return 'passed'
}
