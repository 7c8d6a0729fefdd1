import { join } from 'node:path'
import { FindingList, RunTargetsFold, StreamedTrialKeys } from '../src/bundles/index.ts'
import {
  withTasks,
  type BenchmarkInfo,
  type RunnerInfo,
  type RunSummary,
  type SealedSummary,
  type SummarySettings,
  type TaskRow,
  type TaskRows,
} from '../src/core/index.ts'
import { HtmlReportAggregates } from '../src/reports/html/index.ts'
import { ReportTrials } from '../src/reports/sections/trials.ts'
import { SummaryFold } from '../src/scorers/index.ts'
import { reportTrial, SlimTrials, type SlimTrial } from './slim-trial.ts'
import type { SpilledRecord } from './spilled-record.ts'
import { SpilledColumns } from './spilled-columns.ts'
import { TaskRowsSpill } from './task-rows-spill.ts'

/** The task table's file in the spill folder, when a seal spills it. */
export const TASK_ROWS_FILE = 'tasks.jsonl'

export interface SealTallyOptions {
  /** Keep every trial's slim form (the console and job summaries read them). */
  keepSlims: boolean
  /**
   * Write the task table and the statistics' number columns to files in this folder as they are folded, instead of
   * holding them (a monitor window's seal: nothing per trace stays in memory).
   */
  spillDir?: string
}

/**
 * What the seal takes from each trial's record as it reads the spill once in bundle order, so that no record, and
 * no object per trial unless asked for, outlives that pass: the statistics (SummaryFold), the targets, benchmarks
 * and evaluators metadata.json lists, report.html's totals and report.md's rows.
 */
export class SealTally {
  count = 0
  readonly totals: HtmlReportAggregates
  readonly report = new ReportTrials()
  /** Every trial's slim form, in bundle order, when the caller keeps them (the console and job summaries read them). */
  readonly slims: SlimTrial[] = []
  private readonly summaryFold: SummaryFold
  private readonly taskRows: TaskRows & { add(task: TaskRow['task'], tokens: number): void }
  private readonly slimOf: SlimTrials
  private readonly keepSlims: boolean
  private readonly columns: SpilledColumns | undefined
  private readonly runTargets = new RunTargetsFold()
  private readonly evaluatorIds = new Set<string>()
  /** The trials' keys, checked as they pass (run ids, duplicates) for sealBundle, which then holds their count. */
  readonly keys: StreamedTrialKeys
  private sealed: SealedSummary | undefined

  constructor(
    private readonly runId: string,
    settings: SummarySettings,
    options: SealTallyOptions,
  ) {
    this.keepSlims = options.keepSlims
    const { spillDir } = options
    this.columns = spillDir === undefined ? undefined : new SpilledColumns(spillDir)
    this.taskRows =
      spillDir === undefined ? new HeldRows() : new TaskRowsSpill(join(spillDir, TASK_ROWS_FILE))
    this.totals = new HtmlReportAggregates(this.columns)
    this.summaryFold = new SummaryFold(
      settings,
      (task, group) =>
        this.taskRows.add(
          task,
          group.trials.reduce((sum, t) => sum + t.usage.tokens, 0),
        ),
      this.columns,
    )
    this.slimOf = new SlimTrials(runId)
    this.keys = new StreamedTrialKeys(runId, new FindingList())
  }

  /** The next spilled trial in bundle order: its whole record is parsed only when report.md shows a row of it. */
  addSpilled(spilled: SpilledRecord): void {
    const slim = this.slimOf.sharing(spilled.slim)
    if (this.keepSlims) this.slims.push(slim)
    this.keys.add(slim)
    this.count++
    this.summaryFold.add(slim)
    this.totals.add(slim)
    this.report.add(spilled.rows ? spilled.record() : reportTrial(slim))
    this.runTargets.add(slim)
    for (const score of slim.scores) this.evaluatorIds.add(score.evaluatorId)
  }

  /** The run's statistics and its task table, computed once, after the last trial. */
  summary(): SealedSummary {
    this.sealed ??= { summary: this.summaryFold.finishHead(), tasks: this.taskRows }
    return this.sealed
  }

  /** summary() with the task table in memory, when it was held. */
  wholeSummary(): RunSummary {
    if (!(this.taskRows instanceof HeldRows)) throw new Error('SealTally: the task table was spilled')
    return withTasks(
      this.summary().summary,
      this.taskRows.rows.map((r) => r.task),
    )
  }

  /** The task table's rows, in bundle order, as summary() gives them. */
  get tasks(): TaskRows {
    return this.taskRows
  }

  /** Closes the spilled files (they stay, for the spill folder to take). */
  close(): void {
    if (this.taskRows instanceof TaskRowsSpill) this.taskRows.close()
    this.columns?.close()
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
}

/** A task table in memory, in the order folded. */
class HeldRows implements TaskRows {
  readonly rows: TaskRow[] = []

  get count(): number {
    return this.rows.length
  }

  add(task: TaskRow['task'], tokens: number): void {
    this.rows.push({ task, tokens })
  }

  [Symbol.iterator](): Iterator<TaskRow> {
    return this.rows[Symbol.iterator]()
  }
}
