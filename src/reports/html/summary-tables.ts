import {
  TERMINATED_BY,
  TRIAL_OUTCOMES,
  type CategorySummary,
  type EvaluatorSummary,
  type RunMetadata,
  type RunSummary,
  type TaskSummary,
} from '../../core/index.ts'
import {
  confidenceLabel,
  DASH,
  decimal,
  decimalInterval,
  integer,
  percent,
  percentInterval,
  seconds,
  usd,
} from '../format.ts'
import { taskKeyOf } from '../summary-text.ts'
import type { TableData } from './page-data.ts'
import { numberColumn, tableData, textColumn, type ColumnSpec } from './table-data.ts'

/** Task key → index into summary.tasks, and what the summary does not keep per task: tokens, from the trials. */
export interface TaskLookup {
  taskIndex: ReadonlyMap<string, number>
  tokensByTask: ReadonlyMap<string, number>
}

export function tasksTable(summary: RunSummary, lookup: TaskLookup): TableData {
  const tokens = (t: TaskSummary) => lookup.tokensByTask.get(taskKeyOf(t)) ?? 0
  const columns: ColumnSpec<TaskSummary>[] = [
    textColumn('benchmark', 'Benchmark', (t) => t.benchmarkId),
    { ...textColumn('task', 'Task', (t) => t.taskId), opensTask: true },
    { ...textColumn('category', 'Category', (t) => t.category ?? DASH), value: (t) => t.category },
    numberColumn('trials', 'Trials', (t) => t.trials, integer),
    numberColumn('passed', 'Passed', (t) => t.passed, integer),
    numberColumn('passRate', 'Pass rate', (t) => t.passRate, percent),
    numberColumn('meanScore', 'Mean score', (t) => t.meanScore, decimal),
    numberColumn('cost', 'Cost (USD)', (t) => t.costUsd, usd),
    numberColumn('tokens', 'Tokens', tokens, integer),
    textColumn('flaky', 'Flaky', (t) => (t.flaky ? 'yes' : t.passed === 0 ? 'never passed' : 'no')),
  ]
  return tableData(
    { id: 'tasks', noun: 'task', columns, key: taskKeyOf, task: (t) => lookup.taskIndex.get(taskKeyOf(t)) },
    summary.tasks,
  )
}

interface BenchmarkRow {
  id: string
  version: string
  tasks: TaskSummary[]
  tokens: number
}

/** Per benchmark, from its tasks: the mean over tasks of each task's pass rate, as the headline averages. */
export function benchmarkRows(
  metadata: RunMetadata,
  summary: RunSummary,
  lookup: TaskLookup,
): BenchmarkRow[] {
  const rows = new Map<string, BenchmarkRow>()
  const versions = new Map(metadata.benchmarks.map((b) => [b.id, b.version]))
  for (const task of summary.tasks) {
    let row = rows.get(task.benchmarkId)
    if (!row) {
      row = { id: task.benchmarkId, version: versions.get(task.benchmarkId) ?? DASH, tasks: [], tokens: 0 }
      rows.set(task.benchmarkId, row)
    }
    row.tasks.push(task)
    row.tokens += lookup.tokensByTask.get(taskKeyOf(task)) ?? 0
  }
  return [...rows.values()]
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)
const mean = (xs: readonly number[]) => (xs.length > 0 ? sum(xs) / xs.length : null)

export function benchmarksTable(rows: readonly BenchmarkRow[]): TableData {
  const columns: ColumnSpec<BenchmarkRow>[] = [
    textColumn('benchmark', 'Benchmark', (b) => b.id),
    textColumn('version', 'Version', (b) => b.version),
    numberColumn('tasks', 'Tasks', (b) => b.tasks.length, integer),
    numberColumn('trials', 'Trials', (b) => sum(b.tasks.map((t) => t.trials)), integer),
    numberColumn('passed', 'Passed', (b) => sum(b.tasks.map((t) => t.passed)), integer),
    numberColumn('passRate', 'Pass rate (task mean)', (b) => mean(b.tasks.map((t) => t.passRate)), percent),
    numberColumn(
      'meanScore',
      'Mean score',
      (b) => mean(b.tasks.flatMap((t) => (t.meanScore === null ? [] : [t.meanScore]))),
      decimal,
    ),
    numberColumn('cost', 'Cost (USD)', (b) => sum(b.tasks.map((t) => t.costUsd)), usd),
    numberColumn('tokens', 'Tokens', (b) => b.tokens, integer),
  ]
  return tableData({ id: 'benchmarks', noun: 'benchmark', columns, key: (b) => b.id }, rows)
}

/** Nothing when the run has no categories to tell apart, as in report.md. */
export function categoriesTable(summary: RunSummary): TableData | null {
  const { categories } = summary
  if (categories.length === 0) return null
  if (categories.length === 1 && categories[0]!.category === '(none)') return null
  const level = confidenceLabel(summary.settings.confidence)
  const columns: ColumnSpec<CategorySummary>[] = [
    textColumn('category', 'Category', (c) => c.category),
    numberColumn('tasks', 'Tasks', (c) => c.tasks, integer),
    numberColumn('trials', 'Trials', (c) => c.trials, integer),
    numberColumn('passed', 'Passed', (c) => c.passed, integer),
    numberColumn('passRate', 'Pass rate', (c) => c.pass.mean, percent),
    {
      id: 'ci',
      label: `${level} CI (t)`,
      numeric: true,
      value: (c) => c.pass.ci?.lower ?? null,
      text: (c) => percentInterval(c.pass.ci),
    },
  ]
  return tableData({ id: 'categories', noun: 'category', columns, key: (c) => c.category }, categories)
}

export function evaluatorsTable(summary: RunSummary): TableData | null {
  if (summary.evaluators.length === 0) return null
  const level = confidenceLabel(summary.settings.confidence)
  const columns: ColumnSpec<EvaluatorSummary>[] = [
    textColumn('evaluator', 'Evaluator', (e) => e.evaluatorId),
    textColumn('kind', 'Kind', (e) => e.kind),
    numberColumn('n', 'n', (e) => e.n, integer),
    numberColumn('meanScore', 'Mean score', (e) => e.score.mean, decimal),
    {
      id: 'scoreCi',
      label: `${level} CI (t)`,
      numeric: true,
      value: (e) => e.score.ci?.lower ?? null,
      text: (e) => decimalInterval(e.score.ci),
    },
    numberColumn('passRate', 'Pass rate', (e) => e.passCount.rate, percent),
    {
      id: 'wilson',
      label: `${level} CI (Wilson)`,
      numeric: true,
      value: (e) => e.passCount.wilson?.lower ?? null,
      text: (e) => percentInterval(e.passCount.wilson),
    },
    numberColumn('errors', 'Errors', (e) => e.errors, integer),
  ]
  return tableData(
    { id: 'evaluators', noun: 'evaluator', columns, key: (e) => e.evaluatorId },
    summary.evaluators,
  )
}

interface CountRow {
  name: string
  trials: number
}

/** How trials came out and how the agent's runs ended, in one table. */
export function outcomesTable(summary: RunSummary): TableData {
  const rows: CountRow[] = [
    ...TRIAL_OUTCOMES.map((o) => ({ name: `outcome: ${o}`, trials: summary.outcomes[o] ?? 0 })),
    ...[...TERMINATED_BY, 'none' as const].map((t) => ({
      name: `ended by: ${t === 'none' ? 'none (no agent result)' : t}`,
      trials: summary.terminations[t] ?? 0,
    })),
  ].filter((r) => r.trials > 0)
  const columns: ColumnSpec<CountRow>[] = [
    textColumn('name', 'Outcome / ended by', (r) => r.name),
    numberColumn('trials', 'Trials', (r) => r.trials, integer),
    numberColumn('share', 'Share', (r) => (summary.n > 0 ? r.trials / summary.n : null), percent),
  ]
  return tableData({ id: 'outcomes', noun: 'row', columns, key: (r) => r.name }, rows)
}

interface UsageRow {
  name: string
  tokens: number | null
  cost: number | null
  wall: number | null
  turns: number | null
}

/** Totals, mean per trial and per-trial percentiles, as report.md's usage table. */
export function usageTable(summary: RunSummary): TableData {
  const { tokens, costUsd, wallSeconds, turns, perTrial } = summary.usage
  const n = summary.n
  const per = (total: number) => (n > 0 ? total / n : null)
  const rows: UsageRow[] = [
    { name: 'Total', tokens, cost: costUsd, wall: wallSeconds, turns },
    {
      name: 'Mean per trial',
      tokens: per(tokens),
      cost: per(costUsd),
      wall: per(wallSeconds),
      turns: per(turns),
    },
    ...(['p50', 'p95', 'max'] as const).map((at) => ({
      name: `${at === 'max' ? 'Max' : at} per trial`,
      tokens: perTrial.tokens[at],
      cost: perTrial.costUsd[at],
      wall: perTrial.wallSeconds[at],
      turns: null,
    })),
  ]
  const columns: ColumnSpec<UsageRow>[] = [
    textColumn('name', '', (r) => r.name),
    numberColumn('tokens', 'Tokens', (r) => r.tokens, integer),
    numberColumn('cost', 'Cost (USD)', (r) => r.cost, usd),
    numberColumn('wall', 'Wall (s)', (r) => r.wall, seconds),
    numberColumn(
      'turns',
      'Turns',
      (r) => r.turns,
      (v) => (Number.isInteger(v) ? integer(v) : decimal(v, 1)),
    ),
  ]
  return tableData({ id: 'usage', noun: 'row', columns, key: (r) => r.name }, rows)
}

/** The tasks that passed sometimes, least reliable first; null when no task ran twice. */
export function flakyTable(
  summary: RunSummary,
  flakyKeys: readonly string[] | null,
  lookup: TaskLookup,
): TableData | null {
  if (flakyKeys === null) return null
  const wanted = new Set(flakyKeys)
  const rows = summary.tasks
    .filter((t) => wanted.has(taskKeyOf(t)))
    .sort((a, b) => a.consistency - b.consistency)
  const columns: ColumnSpec<TaskSummary>[] = [
    { ...textColumn('task', 'Task', taskKeyOf), opensTask: true },
    numberColumn('trials', 'Trials', (t) => t.trials, integer),
    numberColumn('passed', 'Passed', (t) => t.passed, integer),
    numberColumn('passRate', 'Pass rate', (t) => t.passRate, percent),
    numberColumn(
      'consistency',
      'Consistency',
      (t) => t.consistency,
      (v) => decimal(v, 2),
    ),
  ]
  return tableData(
    {
      id: 'flaky',
      noun: 'flaky task',
      columns,
      key: taskKeyOf,
      task: (t) => lookup.taskIndex.get(taskKeyOf(t)),
    },
    rows,
  )
}
