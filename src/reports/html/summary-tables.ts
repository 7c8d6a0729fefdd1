import {
  TERMINATED_BY,
  TRIAL_OUTCOMES,
  type CategorySummary,
  type EvaluatorSummary,
  type RunMetadata,
  type SummaryHead,
  type TaskRow,
  type TaskRows,
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
import { taskKeyOf, type TaskLookup } from '../summary-text.ts'
import type { TableData } from './page-data.ts'
import {
  numberColumn,
  streamedTableData,
  tableData,
  textColumn,
  type ColumnSpec,
  type StreamedTable,
} from './table-data.ts'

/** Every task, in the summary's order: row i opens task i. */
export function tasksTable(tasks: TaskRows): StreamedTable {
  const columns: ColumnSpec<TaskRow>[] = [
    textColumn('benchmark', 'Benchmark', (r) => r.task.benchmarkId),
    { ...textColumn('task', 'Task', (r) => r.task.taskId), opensTask: true },
    { ...textColumn('category', 'Category', (r) => r.task.category ?? DASH), value: (r) => r.task.category },
    numberColumn('trials', 'Trials', (r) => r.task.trials, integer),
    numberColumn('passed', 'Passed', (r) => r.task.passed, integer),
    numberColumn('passRate', 'Pass rate', (r) => r.task.passRate, percent),
    numberColumn('meanScore', 'Mean score', (r) => r.task.meanScore, decimal),
    numberColumn('cost', 'Cost (USD)', (r) => r.task.costUsd, usd),
    numberColumn('tokens', 'Tokens', (r) => r.tokens, integer),
    textColumn('flaky', 'Flaky', (r) => (r.task.flaky ? 'yes' : r.task.passed === 0 ? 'never passed' : 'no')),
  ]
  return streamedTableData(
    { id: 'tasks', noun: 'task', columns, key: (r) => taskKeyOf(r.task), task: (_, index) => index },
    () => tasks,
  )
}

/** A benchmark's tasks, folded: sums in the table's order, so the means are those of its rows. */
export interface BenchmarkRow {
  id: string
  version: string
  tasks: number
  trials: number
  passed: number
  passRates: number
  scores: number
  scored: number
  cost: number
  tokens: number
}

/** Per benchmark, from its tasks: the mean over tasks of each task's pass rate, as the headline averages. */
export function benchmarkRows(metadata: RunMetadata, tasks: TaskRows): BenchmarkRow[] {
  const rows = new Map<string, BenchmarkRow>()
  const versions = new Map(metadata.benchmarks.map((b) => [b.id, b.version]))
  for (const { task, tokens } of tasks) {
    let row = rows.get(task.benchmarkId)
    if (!row) {
      row = {
        id: task.benchmarkId,
        version: versions.get(task.benchmarkId) ?? DASH,
        tasks: 0,
        trials: 0,
        passed: 0,
        passRates: 0,
        scores: 0,
        scored: 0,
        cost: 0,
        tokens: 0,
      }
      rows.set(task.benchmarkId, row)
    }
    row.tasks++
    row.trials += task.trials
    row.passed += task.passed
    row.passRates += task.passRate
    if (task.meanScore !== null) {
      row.scores += task.meanScore
      row.scored++
    }
    row.cost += task.costUsd
    row.tokens += tokens
  }
  return [...rows.values()]
}

const ratio = (total: number, count: number) => (count > 0 ? total / count : null)

export function benchmarksTable(rows: readonly BenchmarkRow[]): TableData {
  const columns: ColumnSpec<BenchmarkRow>[] = [
    textColumn('benchmark', 'Benchmark', (b) => b.id),
    textColumn('version', 'Version', (b) => b.version),
    numberColumn('tasks', 'Tasks', (b) => b.tasks, integer),
    numberColumn('trials', 'Trials', (b) => b.trials, integer),
    numberColumn('passed', 'Passed', (b) => b.passed, integer),
    numberColumn('passRate', 'Pass rate (task mean)', (b) => ratio(b.passRates, b.tasks), percent),
    numberColumn('meanScore', 'Mean score', (b) => ratio(b.scores, b.scored), decimal),
    numberColumn('cost', 'Cost (USD)', (b) => b.cost, usd),
    numberColumn('tokens', 'Tokens', (b) => b.tokens, integer),
  ]
  return tableData({ id: 'benchmarks', noun: 'benchmark', columns, key: (b) => b.id }, rows)
}

/** Nothing when the run has no categories to tell apart, as in report.md. */
export function categoriesTable(summary: SummaryHead): TableData | null {
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

export function evaluatorsTable(summary: SummaryHead): TableData | null {
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
export function outcomesTable(summary: SummaryHead): TableData {
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
export function usageTable(summary: SummaryHead): TableData {
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
export function flakyTable(flakyKeys: readonly string[] | null, lookup: TaskLookup): TableData | null {
  if (flakyKeys === null) return null
  const wanted = new Set(flakyKeys)
  const rows = [...lookup]
    .filter(([key]) => wanted.has(key))
    .map(([, found]) => found)
    .sort((a, b) => a.task.consistency - b.task.consistency)
  const columns: ColumnSpec<{ index: number; task: TaskSummary }>[] = [
    { ...textColumn('task', 'Task', (r) => taskKeyOf(r.task)), opensTask: true },
    numberColumn('trials', 'Trials', (r) => r.task.trials, integer),
    numberColumn('passed', 'Passed', (r) => r.task.passed, integer),
    numberColumn('passRate', 'Pass rate', (r) => r.task.passRate, percent),
    numberColumn(
      'consistency',
      'Consistency',
      (r) => r.task.consistency,
      (v) => decimal(v, 2),
    ),
  ]
  return tableData(
    { id: 'flaky', noun: 'flaky task', columns, key: (r) => taskKeyOf(r.task), task: (r) => r.index },
    rows,
  )
}
