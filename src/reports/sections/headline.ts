import type { SummaryHead, TaskRows } from '../../core/index.ts'
import { taskSummaries } from '../../core/index.ts'
import { plural } from '../format.ts'
import { headlineModel, type HeadlineModel } from '../headline-model.ts'
import { inertText } from '../escape-markdown.ts'
import { markdownTable } from '../markdown-table.ts'
import { hasRepeatedTrials, tasksWithCounts } from '../summary-text.ts'

/** More names than this and a callout stops being read; the Tasks table lists them all. */
const MAX_CALLOUT_TASKS = 20

/**
 * The pass rate a reader quotes, with its interval, under the run's error policy and then the other one; right
 * under it, the tasks an average hides: those that never passed, and those that passed only sometimes. A run that
 * mixes benchmarks or targets gets one row per benchmark × target, and a pooled figure only for one target.
 */
export function headlineSection(summary: SummaryHead, tasks: TaskRows): string {
  const model = headlineModel(summary)
  const { headline } = summary
  const lines = ['## Overall', '']
  if (model.grouped)
    lines.push(`Per benchmark and target (${model.policy}):`, '', headlineGroupsTable(model), '')
  if (model.pooled) {
    const { primary, other, scope } = model.pooled
    const label = scope === null ? 'Pass rate' : `Pass rate over ${inertText(scope)}`
    lines.push(
      `**${label}: ${primary.rate}** (${primary.details}; ${model.policy})`,
      '',
      `With ${model.otherPolicy}: ${other.rate} (${other.details}). ` +
        `${summary.passed} of ${plural(summary.n, 'trial')} passed.`,
    )
  } else {
    lines.push(`> ${model.note ?? ''}`, '', `${summary.passed} of ${plural(summary.n, 'trial')} passed.`)
  }
  if (headline.neverPassed.length > 0) {
    const count = headline.neverPassed.length
    lines.push(
      '',
      `> **⚠ ${plural(count, 'task')} never passed:** ${inertText(tasksWithCounts(taskSummaries(tasks), headline.neverPassed, MAX_CALLOUT_TASKS))}`,
    )
  }
  if (hasRepeatedTrials(taskSummaries(tasks))) {
    const flaky = headline.flaky
    lines.push(
      '',
      flaky.length === 0
        ? `**Flaky tasks:** none of ${tasks.count}.`
        : `**Flaky tasks:** ${flaky.length} of ${tasks.count} passed in some trials and failed in others: ` +
            inertText(tasksWithCounts(taskSummaries(tasks), flaky, MAX_CALLOUT_TASKS)),
    )
  }
  return lines.join('\n')
}

/** One row per benchmark × target, the figure under the run's error policy first; report.md and the job summary. */
export function headlineGroupsTable(model: HeadlineModel): string {
  const headers = [
    'Benchmark',
    'Target',
    'Pass rate',
    `${model.level} CI`,
    'Interval',
    'Tasks',
    'Trials',
    'Passed trials',
    'Never passed',
    `With ${model.otherPolicy}`,
  ]
  const rows = model.rows.map((r) => [
    r.benchmarkId,
    r.target,
    r.primary.rate,
    r.primary.ci,
    r.primary.method,
    String(r.primary.tasks),
    String(r.primary.trials),
    String(r.passed),
    String(r.neverPassed),
    `${r.other.rate} (${r.other.ci})`,
  ])
  const right = new Set(['Pass rate', 'Tasks', 'Trials', 'Passed trials', 'Never passed'])
  return markdownTable(
    headers,
    rows,
    headers.map((h) => (right.has(h) ? 'right' : 'left')),
  )
}
