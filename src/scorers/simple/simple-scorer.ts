import type {
  EvaluatorKind,
  EvaluatorSummary,
  RunSummary,
  Scorer,
  TrialOutcome,
  TrialRecord,
} from '../../core/index.ts'

/** A rate that is 0, never NaN, when there is nothing to divide by: NaN would not survive JSON. */
const rate = (part: number, whole: number) => (whole === 0 ? 0 : part / whole)

function outcomeCounts(trials: readonly TrialRecord[]): RunSummary['outcomes'] {
  const counts: Partial<Record<TrialOutcome, number>> = {}
  for (const t of trials) counts[t.outcome] = (counts[t.outcome] ?? 0) + 1
  return counts
}

function evaluatorSummaries(trials: readonly TrialRecord[]): EvaluatorSummary[] {
  const groups = new Map<string, { kind: EvaluatorKind; n: number; sum: number; passed: number }>()
  for (const score of trials.flatMap((t) => t.scores)) {
    const g = groups.get(score.evaluatorId) ?? { kind: score.kind, n: 0, sum: 0, passed: 0 }
    g.n++
    g.sum += score.score
    if (score.passed) g.passed++
    groups.set(score.evaluatorId, g)
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([evaluatorId, g]) => ({
      evaluatorId,
      kind: g.kind,
      n: g.n,
      mean: rate(g.sum, g.n),
      passRate: rate(g.passed, g.n),
    }))
}

function usageTotals(trials: readonly TrialRecord[]): RunSummary['usage'] {
  const total = { tokens: 0, costUsd: 0, wallSeconds: 0, turns: 0 }
  for (const { usage } of trials) {
    total.tokens += usage.tokens
    total.costUsd += usage.costUsd
    total.wallSeconds += usage.wallSeconds
    total.turns += usage.turns
  }
  return total
}

/** Counts, means and totals only: the statistics (pass@k, intervals, comparisons) belong to richer scorers. */
export function simpleScorer(): Scorer {
  return {
    summarize(trials) {
      const passed = trials.filter((t) => t.passed).length
      return {
        n: trials.length,
        passed,
        passRate: rate(passed, trials.length),
        outcomes: outcomeCounts(trials),
        evaluators: evaluatorSummaries(trials),
        usage: usageTotals(trials),
      }
    },
  }
}
