import type { SummaryHead } from '../../core/index.ts'
import {
  confidenceLabel,
  decimal,
  decimalInterval,
  percent,
  percentInterval,
  plural,
  settingsText,
} from '../format.ts'
import { markdownCode } from '../escape-markdown.ts'
import { markdownTable, type Align } from '../markdown-table.ts'

/**
 * Per evaluator: the task-level mean score with its t, clustered and bootstrap uncertainty, and the trial-level
 * pass rate with its Wilson interval; then the settings all of it was computed with.
 */
export function evaluatorsSection(summary: SummaryHead): string {
  const settings = `Settings: ${settingsText(summary.settings, markdownCode)}.`
  if (summary.evaluators.length === 0) return `## Evaluators\n\nNo evaluator scored this run.\n\n${settings}`
  const level = confidenceLabel(summary.settings.confidence)
  const rows = summary.evaluators.map((e) => [
    e.evaluatorId,
    e.kind,
    String(e.n),
    decimal(e.score.mean),
    decimalInterval(e.score.ci),
    e.score.clusteredSe === null
      ? '—'
      : `${decimal(e.score.clusteredSe)} (${plural(e.score.clusters, 'cluster')})`,
    decimalInterval(e.score.bootstrapCi),
    percent(e.passCount.rate),
    percentInterval(e.passCount.wilson),
    String(e.errors),
  ])
  const headers = [
    'Evaluator',
    'Kind',
    'n',
    'Mean score',
    `${level} CI (t)`,
    'Clustered SE',
    `${level} CI (bootstrap)`,
    'Pass rate',
    `${level} CI (Wilson)`,
    'Errors',
  ]
  const align = headers.map((_, i): Align => (i < 2 ? 'left' : 'right'))
  return [
    '## Evaluators',
    '',
    markdownTable(headers, rows, align),
    '',
    'Mean score: the mean over tasks of each task’s reduced score (t interval, clustered standard error and ' +
      'bootstrap over tasks). Pass rate: over trials, with a Wilson interval that treats trials as independent.',
    '',
    settings,
  ].join('\n')
}
