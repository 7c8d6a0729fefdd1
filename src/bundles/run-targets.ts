import { canonicalJson, type BenchmarkInfo, type RunnerInfo, type TrialRecord } from '../core/index.ts'

type TargetsOf = Pick<TrialRecord, 'runner' | 'benchmark'>

/**
 * A run's `targets` and `benchmarks` as its metadata lists them, from its trials: each runner (by its whole info)
 * and each benchmark (by id) once, in the order the trials first name them.
 */
export function runTargets(trials: readonly TargetsOf[]): {
  targets: RunnerInfo[]
  benchmarks: BenchmarkInfo[]
} {
  const fold = new RunTargetsFold()
  for (const trial of trials) fold.add(trial)
  return { targets: fold.targets, benchmarks: fold.benchmarks }
}

/** runTargets a trial at a time, for a seal that reads its trials once and keeps none. */
export class RunTargetsFold {
  private readonly runners = new Map<string, RunnerInfo>()
  /** Runner objects already keyed: trials that share one (a seal's slim forms do) cost one canonicalJson. */
  private readonly keyed = new WeakSet<RunnerInfo>()
  private readonly benchmarkInfos = new Map<string, BenchmarkInfo>()

  add({ runner, benchmark }: TargetsOf): void {
    if (!this.keyed.has(runner)) {
      this.keyed.add(runner)
      const key = canonicalJson(runner)
      if (!this.runners.has(key)) this.runners.set(key, runner)
    }
    if (!this.benchmarkInfos.has(benchmark.id)) this.benchmarkInfos.set(benchmark.id, benchmark)
  }

  get targets(): RunnerInfo[] {
    return [...this.runners.values()]
  }

  get benchmarks(): BenchmarkInfo[] {
    return [...this.benchmarkInfos.values()]
  }
}
