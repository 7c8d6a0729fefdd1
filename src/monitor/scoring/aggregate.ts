import type { AggregatedScore, MonitorEvaluatorSpec } from '../../core/index.ts'
import type { MonitorScore } from '../contract.ts'

/** A key of `aggregateScores`' skipped counts that counts for every evaluator (a trace that did not parse). */
export const ALL_EVALUATORS = '*'

/** The aggregations every evaluator gets, in this order. */
export const AGGREGATIONS = ['mean', 'median', 'p90', 'min', 'max', 'pass_rate'] as const

/**
 * Percentile by linear interpolation between the closest ranks (NumPy's default, which the seed's aggregators
 * use): p of sorted values v at rank (n - 1)·p/100.
 */
function percentile(sorted: readonly number[], p: number): number {
  const rank = ((sorted.length - 1) * p) / 100
  const low = Math.floor(rank)
  const high = Math.ceil(rank)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low)
}

/**
 * Per evaluator (identifier and level), in the order of `specs`: `count` targets scored and `skippedCount` not
 * (a skipReason, or counted in `skipped`, keyed by displayName or ALL_EVALUATORS), with mean, median (= p50), p90,
 * min, max and pass_rate (the share of scores whose evaluator passed them; a score without a verdict passes at
 * 0.5 or above) over the scored ones; every aggregation is null when nothing was scored.
 */
export function aggregateScores(
  scores: readonly MonitorScore[],
  specs: readonly MonitorEvaluatorSpec[],
  skipped: ReadonlyMap<string, number>,
): AggregatedScore[] {
  const bySpec = new Map<string, MonitorScore[]>()
  const key = (name: string, level: string) => `${name}\0${level}`
  for (const s of scores) {
    const k = key(s.individual.evaluatorName, s.individual.level)
    const list = bySpec.get(k)
    if (list) list.push(s)
    else bySpec.set(k, [s])
  }
  return specs.map((spec) => {
    const mine = bySpec.get(key(spec.displayName, spec.level)) ?? []
    const values: number[] = []
    let passed = 0
    let skippedCount = (skipped.get(spec.displayName) ?? 0) + (skipped.get(ALL_EVALUATORS) ?? 0)
    for (const s of mine) {
      const value = s.individual.score
      if (value === undefined) {
        skippedCount++
        continue
      }
      values.push(value)
      if (s.passed ?? value >= 0.5) passed++
    }
    const sorted = [...values].sort((a, b) => a - b)
    const n = sorted.length
    const aggregations: Record<string, number | null> =
      n === 0
        ? Object.fromEntries(AGGREGATIONS.map((a) => [a, null]))
        : {
            mean: sorted.reduce((sum, v) => sum + v, 0) / n,
            median: percentile(sorted, 50),
            p90: percentile(sorted, 90),
            min: sorted[0]!,
            max: sorted[n - 1]!,
            pass_rate: passed / n,
          }
    return {
      identifier: spec.identifier,
      evaluatorName: spec.displayName,
      level: spec.level,
      aggregations,
      count: n,
      skippedCount,
    }
  })
}
