import type { AggregatedScore, MonitorEvaluatorSpec } from '../../core/index.ts'
import type { MonitorScore, ScoreAggregator } from '../contract.ts'

/** What aggregating needs of an evaluator spec. */
export type AggregatedSpec = Pick<MonitorEvaluatorSpec, 'identifier' | 'displayName' | 'level'>

/** A key of `aggregateScores`' skipped counts that counts for every evaluator (a trace that did not parse). */
export const ALL_EVALUATORS = '*'

/** The aggregations every evaluator gets, in this order. */
export const AGGREGATIONS = ['mean', 'median', 'p90', 'min', 'max', 'pass_rate'] as const

/**
 * Percentile by linear interpolation between the closest ranks (NumPy's default, which the seed's aggregators
 * use): p of sorted values v at rank (n - 1)·p/100.
 */
function percentile(sorted: ArrayLike<number>, p: number): number {
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
  specs: readonly AggregatedSpec[],
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
    return aggregatedOf(spec, sorted, passed, skippedCount)
  })
}

/** One evaluator's aggregate from its sorted values, the passes among them and the targets skipped. */
function aggregatedOf(
  spec: AggregatedSpec,
  sorted: ArrayLike<number>,
  passed: number,
  skippedCount: number,
): AggregatedScore {
  const n = sorted.length
  let sum = 0
  // Summed in sorted order, as always: the mean of the same scores is the same number, bit for bit.
  for (let i = 0; i < n; i++) sum += sorted[i]!
  const aggregations: Record<string, number | null> =
    n === 0
      ? Object.fromEntries(AGGREGATIONS.map((a) => [a, null]))
      : {
          mean: sum / n,
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
}

/** One evaluator's running numbers: its values (8 bytes each, grown by doubling), passes and skips. */
class EvaluatorTally {
  values = new Float64Array(64)
  n = 0
  passed = 0
  skipped = 0

  add(value: number, passed: boolean): void {
    if (this.n === this.values.length) {
      const grown = new Float64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.n++] = value
    if (passed) this.passed++
  }
}

/**
 * aggregateScores, folded: each score is reduced to its numbers as it arrives (the value, whether it passed, or a
 * skip), so a window's memory holds 8 bytes a score instead of the scores. Its result equals aggregateScores' over
 * the same scores (median and p90 are exact: the values are sorted at the end).
 */
export function createScoreAggregator(specs: readonly AggregatedSpec[]): ScoreAggregator {
  const key = (name: string, level: string) => `${name}\0${level}`
  const tallies = new Map<string, EvaluatorTally>()
  return {
    add(score) {
      const k = key(score.individual.evaluatorName, score.individual.level)
      let tally = tallies.get(k)
      if (!tally) tallies.set(k, (tally = new EvaluatorTally()))
      const value = score.individual.score
      if (value === undefined) tally.skipped++
      else tally.add(value, score.passed ?? value >= 0.5)
    },
    result(skipped) {
      return specs.map((spec) => {
        const tally = tallies.get(key(spec.displayName, spec.level))
        const before = (skipped.get(spec.displayName) ?? 0) + (skipped.get(ALL_EVALUATORS) ?? 0)
        if (!tally) return aggregatedOf(spec, [], 0, before)
        // The same comparator as aggregateScores' sort: equal values keep their order, so min and max are the same.
        const sorted = tally.values.slice(0, tally.n).sort((a, b) => a - b)
        return aggregatedOf(spec, sorted, tally.passed, before + tally.skipped)
      })
    },
  }
}
