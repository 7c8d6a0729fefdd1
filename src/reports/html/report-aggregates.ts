import { taskKeyOf } from '../summary-text.ts'
import type { HtmlReportTrial } from './trial-data.ts'

/** What the page's run part needs from the trials beyond the summary, folded one trial at a time. */
export interface HtmlReportTotals {
  /** Task key → tokens of its trials (the summary keeps cost per task, not tokens). */
  readonly tokensByTask: ReadonlyMap<string, number>
  /** Benchmark id → tokens. */
  readonly tokensByBenchmark: ReadonlyMap<string, number>
  /** Per trial, for the histograms (whose bins need the least and the most): two numbers a trial, no record. */
  readonly costs: readonly number[]
  readonly tokens: readonly number[]
}

/**
 * The HTML report's running totals: `add` each trial as it is folded, and hand the object to htmlRunPart at the
 * end. It keeps two numbers per trial and one per task and benchmark, never a record.
 */
export class HtmlReportAggregates implements HtmlReportTotals {
  readonly tokensByTask = new Map<string, number>()
  readonly tokensByBenchmark = new Map<string, number>()
  readonly costs: number[] = []
  readonly tokens: number[] = []

  add(trial: Pick<HtmlReportTrial, 'benchmark' | 'taskId' | 'usage'>): void {
    const task = taskKeyOf({ benchmarkId: trial.benchmark.id, taskId: trial.taskId })
    const { tokens, costUsd } = trial.usage
    this.tokensByTask.set(task, (this.tokensByTask.get(task) ?? 0) + tokens)
    this.tokensByBenchmark.set(
      trial.benchmark.id,
      (this.tokensByBenchmark.get(trial.benchmark.id) ?? 0) + tokens,
    )
    this.costs.push(costUsd)
    this.tokens.push(tokens)
  }
}
