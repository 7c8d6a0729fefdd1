import type { RunMetadata, RunSummary, TraceEvent } from '../../core/index.ts'
import { usd } from '../format.ts'
import { chartsData } from './chart-data.ts'
import { comparisonData } from './comparison-data.ts'
import { headlineData } from './headline-data.ts'
import type { PageData } from './page-data.ts'
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
import { trialTables, type HtmlReportTrial } from './trial-data.ts'

export interface HtmlReportInput {
  metadata: RunMetadata
  trials: readonly HtmlReportTrial[]
  summary: RunSummary
  /** The run's trace events (traces.jsonl), in any order. */
  events: readonly TraceEvent[]
}

/** Everything the page shows, computed and formatted here: the page's script only lays it out. */
export function pageData({ metadata, trials, summary, events }: HtmlReportInput): PageData {
  const { tasks, trials: trialData, kinds, taskIndex, tokensByTask } = trialTables(summary, trials, events)
  const lookup = { taskIndex, tokensByTask }
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
    charts: chartsData(summary, trials),
    tasks,
    trials: trialData,
    kinds,
  }
}
