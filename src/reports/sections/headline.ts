import type { RunSummary } from '../../core/index.ts'
import { confidenceLabel, errorPolicyText, percent, plural } from '../format.ts'
import { inertText } from '../markdown-table.ts'
import { figureDetails, hasRepeatedTrials, tasksWithCounts } from '../summary-text.ts'

/** More names than this and a callout stops being read; the Tasks table lists them all. */
const MAX_CALLOUT_TASKS = 20

/**
 * The pass rate a reader quotes, with its interval, under the run's error policy and then the other one; right
 * under it, the tasks an average hides: those that never passed, and those that passed only sometimes.
 */
export function headlineSection(summary: RunSummary): string {
  const { headline, settings } = summary
  const level = confidenceLabel(settings.confidence)
  const other = settings.errorPolicy === 'exclude' ? headline.infraAsFailure : headline.infraExcluded
  const otherPolicy = settings.errorPolicy === 'exclude' ? 'count-as-failure' : 'exclude'
  const lines = [
    '## Overall',
    '',
    `**Pass rate: ${percent(headline.primary.rate)}** (${figureDetails(headline.primary, level)}; ${errorPolicyText(settings.errorPolicy)})`,
    '',
    `With ${errorPolicyText(otherPolicy)}: ${percent(other.rate)} (${figureDetails(other, level)}). ` +
      `${summary.passed} of ${plural(summary.n, 'trial')} passed.`,
  ]
  if (headline.neverPassed.length > 0) {
    const count = headline.neverPassed.length
    lines.push(
      '',
      `> **⚠ ${plural(count, 'task')} never passed:** ${inertText(tasksWithCounts(summary, headline.neverPassed, MAX_CALLOUT_TASKS))}`,
    )
  }
  if (hasRepeatedTrials(summary)) {
    const flaky = headline.flaky
    lines.push(
      '',
      flaky.length === 0
        ? `**Flaky tasks:** none of ${summary.tasks.length}.`
        : `**Flaky tasks:** ${flaky.length} of ${summary.tasks.length} passed in some trials and failed in others: ` +
            inertText(tasksWithCounts(summary, flaky, MAX_CALLOUT_TASKS)),
    )
  }
  return lines.join('\n')
}
