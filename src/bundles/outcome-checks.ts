import type { ScoredTrial, ScoresRecords, TrialOutcome } from '../core/index.ts'
import { classifyOutcome } from '../engine/outcome.ts'
import type { FindingList } from './findings.ts'
import { describeTrial, recordKey, SCORES_FILE } from './layout.ts'

/**
 * The outcomes the engine could have given a trial with this result, scores and verdicts. Whether the harness
 * failed (an evaluator threw, the trace could not be saved) is not recorded apart from the outcome, so
 * infra_failure is always one of them; a trial without a result is also one `recover` cut short (interrupted).
 */
function possibleOutcomes(trial: ScoredTrial): TrialOutcome[] {
  const input = { result: trial.result, scores: trial.scores, verdicts: trial.verdicts }
  const outcomes = [
    classifyOutcome({ ...input, harnessFailed: false }),
    classifyOutcome({ ...input, harnessFailed: true }),
  ]
  if (trial.result === null) outcomes.push('interrupted')
  return outcomes
}

/**
 * Each trial's outcome agrees with what it records, and `passed` with its outcome: an edited verdict (passed: true
 * on a failed trial, a failed score under outcome passed) is found even when the manifest was recomputed.
 */
export function checkOutcomes(scores: ScoresRecords | undefined, findings: FindingList): void {
  if (!scores) return
  const category = {
    key: 'scores:outcome',
    label: 'trials whose outcome or passed disagrees with their record',
  }
  scores.trials.forEach((trial, index) => {
    const where = `trials[${index}] (${describeTrial(recordKey(trial))})`
    if (trial.passed !== (trial.outcome === 'passed')) {
      findings.add(
        'trial-outcome',
        SCORES_FILE,
        `${where}: passed is ${trial.passed} but its outcome is ${trial.outcome}`,
        category,
      )
    }
    const possible = possibleOutcomes(trial)
    if (!possible.includes(trial.outcome)) {
      findings.add(
        'trial-outcome',
        SCORES_FILE,
        `${where}: outcome is ${trial.outcome} but its result, scores and verdicts make it ${possible[0]}`,
        category,
      )
    }
  })
}
