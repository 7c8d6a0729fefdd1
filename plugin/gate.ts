import type { ThrownError, TrialRecord } from '../src/core/index.ts'

/** Minimum aggregate pass rate for a benchmark, or 'each' (every trial must pass). */
export type Gate = 'each' | { minPassRate: number }

/** Outcomes that say the harness, not the agent, went wrong: they fail their case whatever the gate. */
export function isHarnessFailure(record: TrialRecord): boolean {
  return record.outcome === 'infra_failure' || record.outcome === 'not_evaluated'
}

/** One line: the trial's outcome and its mean evaluator score. */
export function trialHeadline(record: TrialRecord): string {
  const mean = record.scores.length
    ? (record.scores.reduce((sum, s) => sum + s.score, 0) / record.scores.length).toFixed(2)
    : 'n/a'
  return `${record.outcome} · score ${mean} · ${record.result?.terminatedBy ?? 'not run'}`
}

/** The type of a trial case's one annotation (the name of its JUnit property). */
export const TRIAL_ANNOTATION_TYPE = 'agentevalops'

/**
 * A finished trial's one annotation, which JUnit writes as a property of its case and the HTML reporter shows: the
 * headline, then each evaluator's score to 3 decimals and verdict, then each policy checker's verdict, joined by
 * ` · `, e.g. `failed · score 0.50 · completed · matches-expected 0.000 fail · brevity 1.000 pass · policy
 * tool-access PASS`. One, since each annotation is a round trip to the main process.
 */
export function trialAnnotation(record: TrialRecord): string {
  return [
    trialHeadline(record),
    ...record.scores.map(
      (s) =>
        `${s.evaluatorId} ${s.score.toFixed(3)} ${s.error !== null ? 'error' : s.passed ? 'pass' : 'fail'}`,
    ),
    ...record.verdicts.map((v) => `policy ${v.checkerId} ${v.verdict}`),
  ].join(' · ')
}

/** Why a trial did not pass, in a few lines that point at trace steps. */
export function explainTrial(record: TrialRecord): string {
  const lines = [
    `${record.taskId} #${record.trial}: ${record.outcome} (terminatedBy ${record.result?.terminatedBy ?? 'n/a'})`,
  ]
  if (record.result?.error) lines.push(`  error: ${record.result.error}${thrownAt(record.result.thrown)}`)
  for (const s of record.scores) {
    if (!s.passed)
      lines.push(`  ${s.evaluatorId}: ${s.score} — ${s.explanation}${thrownAt(s.thrown)}${cite(s.citations)}`)
  }
  for (const v of record.verdicts) {
    for (const f of v.findings)
      lines.push(`  policy ${v.checkerId} ${f.severity}: ${f.message}${cite(f.citations)}`)
  }
  for (const w of record.warnings) lines.push(`  warning: ${w}`)
  return lines.join('\n')
}

/** ` [TypeError at fn (evals/x.eval.ts:3:9)]`: what was thrown and the user's frame it came from. */
function thrownAt(thrown: ThrownError | undefined): string {
  if (!thrown) return ''
  const top = thrown.stack[0]
  return ` [${thrown.type}${top === undefined ? '' : ` at ${top}`}]`
}

function cite(steps: number[]): string {
  return steps.length ? ` (steps ${steps.join(', ')})` : ''
}

export function passRate(records: readonly TrialRecord[]): number {
  return records.length === 0 ? 0 : records.filter((r) => r.passed).length / records.length
}
