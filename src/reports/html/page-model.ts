import type { RunMetadata, RunSummary, TraceEvent } from '../../core/index.ts'
import { decimal, fraction, percent, usd } from '../format.ts'
import { taskKeyOf } from '../summary-text.ts'
import { chartsData } from './chart-data.ts'
import { comparisonData } from './comparison-data.ts'
import { headlineData } from './headline-data.ts'
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
 * The page's run part (its `data` block), computed and formatted here from the metadata, the summary and the
 * totals folded from the trials: the page's script only lays it out. The trials come in their own rows.
 */
export function htmlRunPart(metadata: RunMetadata, summary: RunSummary, totals: HtmlReportTotals): PageData {
  const tasks = summary.tasks.map(taskInfo)
  const taskIndex = new Map(tasks.map((t, i) => [t.key, i]))
  const lookup = { taskIndex, tokensByTask: totals.tokensByTask }
  const headline = headlineData(summary, taskIndex)
  return {
    ...runFactsData(metadata, summary),
    headline,
    comparison: comparisonData(summary, taskIndex),
    tables: {
      benchmarks: benchmarksTable(benchmarkRows(metadata, summary, lookup)),
      categories: categoriesTable(summary),
      evaluators: evaluatorsTable(summary),
      outcomes: outcomesTable(summary),
      usage: usageTable(summary),
      flaky: flakyTable(summary, headline.flakyCount === null ? null : summary.headline.flaky, lookup),
      tasks: tasksTable(summary, lookup),
    },
    costPerSolved:
      `${usd(summary.usage.costPerSolved)} (total cost ÷ passed trials` +
      `${summary.usage.costPerSolved === null ? '; no trial passed' : ''})`,
    charts: chartsData(summary, totals),
    tasks,
    kinds: [...EVENT_KINDS],
  }
}

function taskInfo(t: RunSummary['tasks'][number]): TaskInfo {
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
