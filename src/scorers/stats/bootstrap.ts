/** Percentile bootstrap confidence intervals, reproducible from a seed. */
import { sortedPercentile } from './descriptive.ts'
import type { Interval } from './intervals.ts'
import { seededRandom } from './random.ts'
import { assertAllFinite, assertOpenUnit, assertResamples } from './validate.ts'

export interface BootstrapOptions {
  /** How many resamples to draw; at most 100 000, so a report cannot stall on a typo. */
  resamples: number
  seed: number
  confidence?: number
  /** Defaults to the mean. Receives a fresh resample each call, so it may keep or mutate it. */
  statistic?: (xs: readonly number[]) => number
}

/**
 * The percentile bootstrap interval of a statistic: resample with replacement, then take the type 7
 * percentiles (1 − confidence)/2 and (1 + confidence)/2 of the resampled statistics. Null for fewer than
 * two values, where every resample is the sample itself.
 */
export function bootstrapInterval(values: readonly number[], options: BootstrapOptions): Interval | null {
  const { resamples, seed, confidence = 0.95, statistic } = options
  assertResamples('resamples', resamples)
  assertOpenUnit('confidence', confidence)
  assertAllFinite('values', values)
  const random = seededRandom(seed)
  const n = values.length
  if (n < 2) return null
  // A Float64Array sorts numerically and in place, without a comparator call per comparison.
  const statistics = new Float64Array(resamples)
  // The mean needs no resample array: summing the draws directly keeps a run's summary at tens of milliseconds
  // over thousands of tasks instead of allocating B arrays per estimate.
  if (statistic === undefined) {
    const known = recentMeanInterval(values, resamples, seed, confidence)
    if (known) return { ...known }
    for (let r = 0; r < resamples; r++) {
      let sum = 0
      for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!
      statistics[r] = sum / n
    }
    const interval = percentileInterval(statistics, confidence)
    rememberMeanInterval(values, resamples, seed, confidence, interval)
    return { ...interval }
  }
  for (let r = 0; r < resamples; r++) {
    const sample = new Array<number>(n)
    for (let i = 0; i < n; i++) sample[i] = values[Math.floor(random() * n)]!
    const value = statistic(sample)
    if (!Number.isFinite(value))
      throw new RangeError(`the bootstrap statistic returned ${value} on resample ${r}; it must be finite`)
    statistics[r] = value
  }
  return percentileInterval(statistics, confidence)
}

function percentileInterval(statistics: Float64Array, confidence: number): Interval {
  statistics.sort()
  const tail = (1 - confidence) / 2
  return { lower: sortedPercentile(statistics, tail), upper: sortedPercentile(statistics, 1 - tail) }
}

/**
 * The latest mean intervals. A summary asks for the same one several times (an evaluator's scores, its passes and
 * the headline are one vector when every score is 0 or 1; a run with one category repeats it again), and the
 * answer is a pure function of the values and options: B × n draws are made once, the result is bit for bit the
 * same.
 */
interface RememberedInterval {
  values: Float64Array
  resamples: number
  seed: number
  confidence: number
  interval: Interval
}
const REMEMBERED = 4
const remembered: RememberedInterval[] = []

function recentMeanInterval(
  values: readonly number[],
  resamples: number,
  seed: number,
  confidence: number,
): Interval | undefined {
  for (const r of remembered) {
    if (r.resamples !== resamples || r.seed !== seed || r.confidence !== confidence) continue
    if (sameValues(r.values, values)) return r.interval
  }
  return undefined
}

function rememberMeanInterval(
  values: readonly number[],
  resamples: number,
  seed: number,
  confidence: number,
  interval: Interval,
): void {
  remembered.unshift({ values: Float64Array.from(values), resamples, seed, confidence, interval })
  remembered.length = Math.min(remembered.length, REMEMBERED)
}

function sameValues(kept: Float64Array, values: readonly number[]): boolean {
  if (kept.length !== values.length) return false
  // Object.is: -0 and 0 are told apart, as the draws' sums could tell them apart.
  for (let i = 0; i < kept.length; i++) if (!Object.is(kept[i], values[i])) return false
  return true
}
