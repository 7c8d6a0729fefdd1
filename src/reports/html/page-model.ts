import {
  StreamedJsonArray,
  taskSummaries,
  type RunMetadata,
  type RunSummary,
  type SealedSummary,
  type TaskSummary,
  type TraceEvent,
} from '../../core/index.ts'
import { decimal, fraction, percent, usd } from '../format.ts'
import { hasRepeatedTrials, taskKeyOf, taskLookup } from '../summary-text.ts'
import { chartsData } from './chart-data.ts'
import { comparisonData, comparisonTaskKeys } from './comparison-data.ts'
import { headlineData, MAX_CALLOUT_TASKS } from './headline-data.ts'
import type { PageData, ReportLinks, TaskInfo } from './page-data.ts'
import type { HtmlReportTotals } from './report-aggregates.ts'
import { runFactsData } from './run-data.ts'
import {
  benchmarkRows,
  benchmarksTable,
  categoriesTable,
  evaluatorsTable,
  flakyTable,
  outcomesTable,
  tasksTable,
  usageTable,
} from './summary-tables.ts'
import type { StreamedTable } from './table-data.ts'
import { EVENT_KINDS, type HtmlReportTrial } from './trial-data.ts'

export interface HtmlReportInput {
  metadata: RunMetadata
  trials: readonly HtmlReportTrial[]
  summary: RunSummary
  /** The run's trace events (traces.jsonl), in any order. */
  events: readonly TraceEvent[]
  /** Where the page sits when a server shows it; absent in a bundle's report.html. */
  links?: ReportLinks
}

/**
 * The page's `data` block as the writer holds it: PageData, but its task list and tasks table streamed from the
 * task table's rows as the JSON is written (a long run's are read back from a file, never held).
 */
export type RunPart = Omit<PageData, 'tasks' | 'tables'> & {
  tables: Omit<PageData['tables'], 'tasks'> & { tasks: StreamedTable }
  tasks: StreamedJsonArray<TaskInfo>
}

/**
 * The page's run part (its `data` block), computed and formatted here from the metadata, the summary and the
 * totals folded from the trials: the page's script only lays it out. The trials come in their own rows. The task
 * table is read a few times over (the benchmarks' sums, the rows the headline and comparison name, then the list
 * and the table as they are written), never held.
 */
export function htmlRunPart(metadata: RunMetadata, sealed: SealedSummary, totals: HtmlReportTotals): RunPart {
  const { summary, tasks } = sealed
  const repeated = hasRepeatedTrials(taskSummaries(tasks))
  const flakyKeys = repeated ? summary.headline.flaky : null
  const lookup = taskLookup(taskSummaries(tasks), [
    ...summary.headline.neverPassed.slice(0, MAX_CALLOUT_TASKS),
    ...(flakyKeys ?? []),
    ...comparisonTaskKeys(summary.comparison),
  ])
  const headline = headlineData(summary, repeated, lookup)
  const benchmarks = benchmarkRows(metadata, tasks)
  return {
    ...runFactsData(metadata, summary),
    headline,
    comparison: comparisonData(summary, lookup),
    tables: {
      benchmarks: benchmarksTable(benchmarks),
      categories: categoriesTable(summary),
      evaluators: evaluatorsTable(summary),
      outcomes: outcomesTable(summary),
      usage: usageTable(summary),
      flaky: flakyTable(flakyKeys, lookup),
      tasks: tasksTable(tasks),
    },
    costPerSolved:
      `${usd(summary.usage.costPerSolved)} (total cost ÷ passed trials` +
      `${summary.usage.costPerSolved === null ? '; no trial passed' : ''})`,
    charts: chartsData(benchmarks, totals),
    tasks: new StreamedJsonArray(function* () {
      for (const { task } of tasks) yield taskInfo(task)
    }),
    kinds: [...EVENT_KINDS],
  }
}

function taskInfo(t: TaskSummary): TaskInfo {
  return {
    key: taskKeyOf(t),
    benchmark: t.benchmarkId,
    taskId: t.taskId,
    line: [
      `${fraction(t.passed, t.trials)} passed`,
      `pass rate ${percent(t.passRate)}`,
      `mean score ${decimal(t.meanScore)}`,
      usd(t.costUsd),
      ...(t.category === null ? [] : [`category ${t.category}`]),
      ...(t.flaky ? ['flaky'] : []),
    ].join(' · '),
  }
}
