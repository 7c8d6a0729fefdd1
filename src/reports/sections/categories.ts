import type { SummaryHead } from '../../core/index.ts'
import { confidenceLabel, percent, percentInterval } from '../format.ts'
import { markdownTable } from '../markdown-table.ts'

/** The pass rate per task category; nothing when the run has no categories to tell apart. */
export function categoriesSection(summary: SummaryHead): string | undefined {
  const { categories } = summary
  if (categories.length === 0) return undefined
  if (categories.length === 1 && categories[0]!.category === '(none)') return undefined
  const rows = categories.map((c) => [
    c.category,
    String(c.tasks),
    String(c.trials),
    String(c.passed),
    percent(c.pass.mean),
    percentInterval(c.pass.ci),
  ])
  return [
    '## Categories',
    '',
    markdownTable(
      [
        'Category',
        'Tasks',
        'Trials',
        'Passed',
        'Pass rate',
        `${confidenceLabel(summary.settings.confidence)} CI (t)`,
      ],
      rows,
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
  ].join('\n')
}
