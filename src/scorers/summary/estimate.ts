import type { Estimate, Interval, SummarySettings } from '../../core/index.ts'
import {
  bootstrapInterval,
  clusteredStandardError,
  mean,
  standardError,
  tInterval,
  wilsonInterval,
} from '../stats/index.ts'

/** One value per task and the cluster each task belongs to. */
export interface TaskValues {
  values: readonly number[]
  clusters: readonly string[]
}

/**
 * Mean over tasks with its standard errors and intervals. The interval is Wilson's when every task's value is 0
 * or 1 (as the headline's is): a t interval of 0/1 values collapses to a point at all-pass and leaves [0, 1] with
 * few tasks. Scores between 0 and 1 keep the t interval.
 */
export function estimateOf({ values, clusters }: TaskValues, settings: SummarySettings): Estimate {
  return {
    tasks: values.length,
    mean: mean(values),
    se: standardError(values),
    ci: passRateInterval(values, settings.confidence).ci,
    clusteredSe: clusteredStandardError(values, clusters),
    clusters: new Set(clusters).size,
    bootstrapCi: bootstrapInterval(values, { ...settings.bootstrap, confidence: settings.confidence }),
  }
}

/** Values that are each 0 or 1: pass/fail per task, where a Wilson interval is the right one. */
export function isBinary(values: readonly number[]): boolean {
  return values.every((v) => v === 0 || v === 1)
}

/**
 * The interval of a pass rate over tasks: Wilson when each task is pass/fail (one trial, or a max/min reducer),
 * else the t interval over per-task rates, which accounts for trials of one task being alike.
 */
export function passRateInterval(
  values: readonly number[],
  confidence: number,
): { ci: Interval | null; method: 'wilson' | 't' } {
  if (isBinary(values)) {
    const passed = values.filter((v) => v === 1).length
    return { ci: wilsonInterval(passed, values.length, confidence), method: 'wilson' }
  }
  return { ci: clampToUnit(tInterval(values, confidence)), method: 't' }
}

/**
 * Scores and pass rates lie in [0, 1]: with few tasks the t interval's symmetric arms may reach past that, and an
 * interval claiming a pass rate below 0 is no more honest for it.
 */
export function clampToUnit(ci: Interval | null): Interval | null {
  return ci && { lower: Math.max(0, ci.lower), upper: Math.min(1, ci.upper) }
}
