import { RunTargetsFold } from '../src/bundles/index.ts'
import {
  type BenchmarkInfo,
  type RunnerInfo,
  type RunSummary,
  type SummarySettings,
  type TrialRecord,
} from '../src/core/index.ts'
import { HtmlReportAggregates } from '../src/reports/html/index.ts'
import { ReportTrials } from '../src/reports/sections/trials.ts'
import { SummaryFold } from '../src/scorers/index.ts'
import type { FoldedTrial } from './run-fold.ts'
import { SlimTrials, type SlimTrial } from './slim-trial.ts'

/**
 * What the seal takes from each trial's record as it reads the spill once in bundle order, so that no record, and
 * no object per trial unless asked for, outlives that pass: the statistics (SummaryFold), the targets, benchmarks
 * and evaluators metadata.json lists, report.html's totals and report.md's rows.
 */
export class SealTally {
  count = 0
  readonly totals = new HtmlReportAggregates()
  readonly report = new ReportTrials()
  /** Every trial's slim form, in bundle order, when the caller keeps them (the console and job summaries read them). */
  readonly slims: SlimTrial[] = []
  private readonly summaryFold: SummaryFold
  private readonly slimOf: SlimTrials
  private readonly runTargets = new RunTargetsFold()
  private readonly evaluatorIds = new Set<string>()
  /** Trials whose record names another run (by their index in bundle order): rare, and the writer refuses them. */
  private readonly foreign = new Map<number, string>()

  constructor(
    private readonly runId: string,
    settings: SummarySettings,
    private readonly keepSlims: boolean,
  ) {
    this.summaryFold = new SummaryFold(settings)
    this.slimOf = new SlimTrials(runId)
  }

  /** The next record in bundle order. */
  add(record: TrialRecord): void {
    const slim = this.slimOf.of(record)
    if (this.keepSlims) this.slims.push(slim)
    if (slim.runId !== this.runId) this.foreign.set(this.count, slim.runId)
    this.count++
    this.summaryFold.add(slim)
    this.totals.add(slim)
    this.report.add(record)
    this.runTargets.add(slim)
    for (const score of slim.scores) this.evaluatorIds.add(score.evaluatorId)
  }

  /** The run's statistics; once, after the last trial. */
  summary(): RunSummary {
    return this.summaryFold.finish()
  }

  /** The runners, in first-seen order. */
  get targets(): RunnerInfo[] {
    return this.runTargets.targets
  }

  /** The benchmarks, in first-seen order. */
  get benchmarks(): BenchmarkInfo[] {
    return this.runTargets.benchmarks
  }

  get evaluators(): string[] {
    return [...this.evaluatorIds].sort()
  }

  /** The trials sealBundle holds against the metadata, from the fold's keys of the same trials in the same order. */
  sealKeys(
    sorted: readonly FoldedTrial[],
  ): { runId: string; benchmark: { id: string }; taskId: string; trial: number }[] {
    const benchmarks = new Map<string, { id: string }>()
    return sorted.map((t, i) => {
      let benchmark = benchmarks.get(t.benchmarkId)
      if (!benchmark) benchmarks.set(t.benchmarkId, (benchmark = { id: t.benchmarkId }))
      return { runId: this.foreign.get(i) ?? this.runId, benchmark, taskId: t.taskId, trial: t.trial }
    })
  }
}
