import type {
  EvaluatorKind,
  EvaluatorSummary,
  RunSummary,
  Scorer,
  NumberColumns,
  SummaryHead,
  SummarySettings,
  TaskSummary,
} from '../../core/index.ts'
import { heldColumns, withTasks } from '../../core/index.ts'
import { HeadlineFold, headlineOf } from './headline.ts'
import { MetricColumns, type Cluster, type MetricPick } from './metric.ts'
import { OutcomeCounts } from './outcomes.ts'
import { resolveSummarySettings, type SummaryOptions } from './settings.ts'
import { groupByTask, compareText, type SummarizedTrial, type TaskGroup } from './task-groups.ts'
import { TaskTableFold } from './task-table.ts'
import { UsageFold } from './usage.ts'

/**
 * The version of the method summarizeTrials computes, stamped on every summary it writes. Raise it whenever a figure
 * of the same trials and settings would come out differently (a new interval, estimator or rounding), so that
 * validate-bundle does not take a bundle of the older method for an edited one.
 */
export const STATISTICS_METHOD_VERSION = 1

/**
 * The run's statistics: the headline pass rate with its interval under both error policies, per evaluator the
 * task-level mean with t, clustered and bootstrap uncertainty, pass@k / pass^k, outcome counts, per-task and
 * per-category tables and usage percentiles. Deterministic: the bootstrap is seeded and tasks are sorted.
 */
export function statsScorer(options: SummaryOptions = {}): Scorer {
  const settings = resolveSummarySettings(options)
  return { summarize: (trials) => summarizeTrials(trials, settings) }
}

export function summarizeTrials(
  unordered: readonly SummarizedTrial[],
  settings: SummarySettings,
): RunSummary {
  // Sums of floating-point figures depend on their order: one order, whatever order the trials arrived in.
  const fold = new SummaryFold(settings)
  for (const group of groupByTask(unordered)) fold.addTask(group)
  return fold.finish()
}

/**
 * A summary read from a bundle written before the headline had one figure per benchmark × target gets those
 * figures from its trials, so a re-rendered report of an old bundle does not pool different agents either.
 */
export function withGroupedHeadline(summary: RunSummary, trials: readonly SummarizedTrial[]): RunSummary {
  if (summary.headline.groups !== undefined) return summary
  return { ...summary, headline: headlineOf(groupByTask(trials), summary.settings) }
}

const passedPick: MetricPick = (t) => ({ score: t.passed ? 1 : 0, passed: t.passed })

/**
 * summarizeTrials a trial at a time, trials in bundle order (benchmark, task, trial), as a run's seal reads its
 * spilled records: what it keeps per task is a few numbers per metric and the task's row of the summary, so the
 * trials themselves need never be in memory together. The figures are those of summarizeTrials, to the bit.
 */
export class SummaryFold {
  private current: TaskGroup | undefined
  private tasks = 0
  private n = 0
  private passed = 0
  private readonly outcomes = new OutcomeCounts()
  private readonly usage: UsageFold
  private readonly overall: MetricColumns
  private readonly evaluators = new Map<string, EvaluatorFold>()
  private readonly headline: HeadlineFold
  private readonly table: TaskTableFold
  private readonly rows: TaskSummary[] = []
  /** `label:<value>` once per label value. */
  private readonly labelClusters = new Map<string, string>()

  /**
   * With `onTask`, each task's row of the table is handed over as its task is folded and not kept: finishHead then
   * gives the rest of the summary (finish, which needs the rows, refuses).
   */
  constructor(
    private readonly settings: SummarySettings,
    private readonly onTask?: (task: TaskSummary, group: TaskGroup) => void,
    /** Where the per-task and per-trial numbers are kept until finishHead (a long run's seal: on disk). */
    private readonly columns: NumberColumns = heldColumns,
  ) {
    this.headline = new HeadlineFold(settings, columns)
    this.table = new TaskTableFold(settings, columns)
    this.usage = new UsageFold(columns)
    this.overall = new MetricColumns(columns)
  }

  /** The next trial in bundle order; one out of order is a caller's bug and throws. */
  add(trial: SummarizedTrial): void {
    const current = this.current
    if (current && current.benchmarkId === trial.benchmark.id && current.taskId === trial.taskId) {
      if (trial.trial < current.trials[current.trials.length - 1]!.trial) outOfOrder(trial, current)
      current.trials.push(trial)
      return
    }
    if (
      current &&
      (compareText(trial.benchmark.id, current.benchmarkId) || compareText(trial.taskId, current.taskId)) < 0
    )
      outOfOrder(trial, current)
    this.closeTask()
    this.current = {
      benchmarkId: trial.benchmark.id,
      taskId: trial.taskId,
      key: `${trial.benchmark.id}/${trial.taskId}`,
      labels: trial.labels,
      trials: [trial],
    }
  }

  /** A whole task, its trials in trial order, after every task before it in bundle order. */
  addTask(group: TaskGroup): void {
    this.closeTask()
    this.fold(group)
  }

  finish(): RunSummary {
    if (this.onTask) throw new Error('SummaryFold: the task rows were handed to onTask; use finishHead')
    return withTasks(this.finishHead(), this.rows)
  }

  /** The summary but its task table. */
  finishHead(): SummaryHead {
    this.closeTask()
    const { settings } = this
    return {
      settings,
      statisticsVersion: STATISTICS_METHOD_VERSION,
      n: this.n,
      passed: this.passed,
      passRate: this.n === 0 ? 0 : this.passed / this.n,
      headline: this.headline.headline(),
      overall: this.overall.summary(settings),
      outcomes: this.outcomes.outcomeCounts(),
      terminations: this.outcomes.terminationCounts(),
      evaluators: [...this.evaluators.entries()]
        .sort(([a], [b]) => compareText(a, b))
        .map(([evaluatorId, e]) => e.summary(evaluatorId, settings)),
      categories: this.table.categorySummaries(),
      usage: this.usage.summary(),
    }
  }

  private closeTask(): void {
    if (this.current) this.fold(this.current)
    this.current = undefined
  }

  private fold(group: TaskGroup): void {
    const { reducer, clusterBy } = this.settings
    const cluster = this.clusterOf(group, clusterBy)
    this.overall.add(group.trials, passedPick, cluster, reducer)
    const said = new Set<string>()
    for (const trial of group.trials) {
      this.n++
      if (trial.passed) this.passed++
      this.outcomes.add(trial)
      this.usage.add(trial)
      for (const score of trial.scores) {
        let evaluator = this.evaluators.get(score.evaluatorId)
        if (!evaluator)
          this.evaluators.set(score.evaluatorId, (evaluator = new EvaluatorFold(score.kind, this.columns)))
        evaluator.score(score)
        said.add(score.evaluatorId)
      }
    }
    for (const evaluatorId of said) {
      this.evaluators.get(evaluatorId)!.task(group.trials, evaluatorId, cluster, reducer)
    }
    this.headline.addTask(group)
    const row = this.table.add(group)
    if (this.onTask) this.onTask(row, group)
    else this.rows.push(row)
    this.tasks++
  }

  /** The task's `clusterBy` label, or the task itself when it has none (or clustering is off). */
  private clusterOf(group: TaskGroup, clusterBy: string | null): Cluster {
    const label = clusterBy === null ? undefined : group.labels[clusterBy]
    if (label === undefined) return this.tasks
    let cluster = this.labelClusters.get(label)
    if (cluster === undefined) this.labelClusters.set(label, (cluster = `label:${label}`))
    return cluster
  }
}

/** One evaluator's figures: over its scores (in bundle order) and over tasks. */
class EvaluatorFold {
  private n = 0
  private sum = 0
  private passed = 0
  private errors = 0
  private readonly columns: MetricColumns

  constructor(
    private readonly kind: EvaluatorKind,
    columns: NumberColumns,
  ) {
    this.columns = new MetricColumns(columns)
  }

  score(score: SummarizedTrial['scores'][number]): void {
    this.n++
    this.sum += score.score
    if (score.passed) this.passed++
    if (score.error !== null) this.errors++
  }

  /** A task's trials: each trial's first score by this evaluator is its say. */
  task(
    trials: readonly SummarizedTrial[],
    evaluatorId: string,
    cluster: Cluster,
    reducer: SummarySettings['reducer'],
  ) {
    this.columns.add(
      trials,
      (t) => {
        const score = t.scores.find((s) => s.evaluatorId === evaluatorId)
        return score && { score: score.score, passed: score.passed }
      },
      cluster,
      reducer,
    )
  }

  summary(evaluatorId: string, settings: SummarySettings): EvaluatorSummary {
    return {
      evaluatorId,
      kind: this.kind,
      n: this.n,
      mean: this.n === 0 ? 0 : this.sum / this.n,
      passRate: this.n === 0 ? 0 : this.passed / this.n,
      errors: this.errors,
      ...this.columns.summary(settings),
    }
  }
}

function outOfOrder(trial: SummarizedTrial, after: TaskGroup): never {
  throw new RangeError(
    `SummaryFold: trial ${trial.benchmark.id}/${trial.taskId}#${trial.trial} came after ${after.key}#${after.trials[after.trials.length - 1]!.trial}; trials must come in bundle order (benchmark, task, trial)`,
  )
}
