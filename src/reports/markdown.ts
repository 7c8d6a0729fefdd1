import {
  sealedSummary,
  type ReportGenerator,
  type ReportInput,
  type RunSummary,
  type SealedSummary,
} from '../core/index.ts'
import { categoriesSection } from './sections/categories.ts'
import { comparisonSection } from './sections/comparison.ts'
import { evaluatorsSection } from './sections/evaluators.ts'
import { headerSection } from './sections/header.ts'
import { headlineSection } from './sections/headline.ts'
import { outcomesSection } from './sections/outcomes.ts'
import { passAtKSection } from './sections/pass-at-k.ts'
import { tasksSection } from './sections/tasks.ts'
import { findingsSection, ReportTrials, trialsSection } from './sections/trials.ts'
import { usageSection } from './sections/usage.ts'

/**
 * A report's input; its trials may come as a ReportTrials a run's seal filled as it read its records, in place
 * of the records.
 */
export type MarkdownReportInput = Omit<ReportInput, 'trials' | 'summary'> & {
  trials: ReportInput['trials'] | ReportTrials
  /** Or a seal's summary and its task table, read back from where it was spilled. */
  summary: RunSummary | SealedSummary
}

/** The file name of the Markdown report in a bundle. */
export const MARKDOWN_REPORT_FILE = 'report.md'

/**
 * The human-readable report of a run: a pure function of bundle data, so it can be re-rendered from a bundle.
 * The headline pass rate and the tasks it hides come first; the comparison with a baseline, when there is one,
 * last.
 */
export function renderMarkdownReport({ metadata, trials: input, ...rest }: MarkdownReportInput): string {
  const trials = ReportTrials.from(input)
  const { summary, tasks } = sealedSummary(rest.summary)
  const sections = [
    headerSection(metadata),
    headlineSection(summary, tasks),
    outcomesSection(summary),
    evaluatorsSection(summary),
    passAtKSection(summary, tasks),
    categoriesSection(summary),
    tasksSection(tasks),
    trialsSection(trials),
    findingsSection(trials),
    usageSection(summary),
    comparisonSection(summary.comparison),
  ].filter((section) => section !== undefined)
  return `${sections.join('\n\n')}\n`
}

/** renderMarkdownReport as a ReportGenerator (the built-in reporter `markdown`). */
export function markdownReportGenerator(): ReportGenerator<ReportInput> {
  return { format: MARKDOWN_REPORT_FILE, render: renderMarkdownReport }
}
