import { canonicalJson, type BenchmarkInfo, type RunnerInfo, type TrialRecord } from '../core/index.ts'

/**
 * A run's `targets` and `benchmarks` as its metadata lists them, from its trials: each runner (by its whole info)
 * and each benchmark (by id) once, in the order the trials first name them.
 */
export function runTargets(trials: readonly Pick<TrialRecord, 'runner' | 'benchmark'>[]): {
  targets: RunnerInfo[]
  benchmarks: BenchmarkInfo[]
} {
  return {
    targets: uniqueBy(
      trials.map((t) => t.runner),
      (r) => canonicalJson(r),
    ),
    benchmarks: uniqueBy(
      trials.map((t) => t.benchmark),
      (b) => b.id,
    ),
  }
}

/** Values in first-seen order, each once. */
export function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>()
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item)
  return [...seen.values()]
}
