import { heldColumns, type NumberColumn, type NumberColumns, type TaskSummary } from '../../core/index.ts'
import { taskKeyOf } from '../summary-text.ts'
import type { HtmlReportTrial } from './trial-data.ts'

/** What the page's run part needs from the trials beyond the summary, folded one trial at a time. */
export interface HtmlReportTotals {
  /** Benchmark id → tokens. */
  readonly tokensByBenchmark: ReadonlyMap<string, number>
  /** Per trial, for the histograms (whose bins need the least and the most): two numbers a trial, no record. */
  readonly costs: readonly number[]
  readonly tokens: readonly number[]
}

/**
 * The HTML report's running totals: `add` each trial as it is folded, and hand the object to htmlRunPart at the
 * end. It keeps two numbers per trial and one per benchmark, never a record (tokens per task are in the task
 * table's rows).
 */
export class HtmlReportAggregates implements HtmlReportTotals {
  readonly tokensByBenchmark = new Map<string, number>()
  private readonly costColumn: NumberColumn
  private readonly tokenColumn: NumberColumn

  constructor(columns: NumberColumns = heldColumns) {
    this.costColumn = columns.column()
    this.tokenColumn = columns.column()
  }

  get costs(): readonly number[] {
    return this.costColumn.values()
  }

  get tokens(): readonly number[] {
    return this.tokenColumn.values()
  }

  add(trial: Pick<HtmlReportTrial, 'benchmark' | 'taskId' | 'usage'>): void {
    const { tokens, costUsd } = trial.usage
    this.tokensByBenchmark.set(
      trial.benchmark.id,
      (this.tokensByBenchmark.get(trial.benchmark.id) ?? 0) + tokens,
    )
    this.costColumn.push(costUsd)
    this.tokenColumn.push(tokens)
  }
}

/** Each task's tokens, summed over `trials` (the summary keeps cost per task, not tokens): for sealedSummary. */
export function taskTokens(
  trials: Iterable<Pick<HtmlReportTrial, 'benchmark' | 'taskId' | 'usage'>>,
): (task: TaskSummary) => number {
  const tokens = new Map<string, number>()
  for (const trial of trials) {
    const key = taskKeyOf({ benchmarkId: trial.benchmark.id, taskId: trial.taskId })
    tokens.set(key, (tokens.get(key) ?? 0) + trial.usage.tokens)
  }
  return (task) => tokens.get(taskKeyOf(task)) ?? 0
}
