import type { RunSummary } from '../../core/index.ts'
import {
  confidenceLabel,
  errorPolicyText,
  fraction,
  intervalMethod,
  percent,
  percentInterval,
  settingsText,
} from '../format.ts'
import { figureDetails, hasRepeatedTrials } from '../summary-text.ts'
import type { HeadlineData, TaskLink } from './page-data.ts'

/** More names than this and a callout stops being read; the tasks table lists them all. */
const MAX_CALLOUT_TASKS = 50

/** The pass rate a reader quotes, with its interval and method, and the tasks the average hides. */
export function headlineData(summary: RunSummary, taskIndex: ReadonlyMap<string, number>): HeadlineData {
  const { headline, settings } = summary
  const level = confidenceLabel(settings.confidence)
  const primary = headline.primary
  const otherPolicy = settings.errorPolicy === 'exclude' ? 'count-as-failure' : 'exclude'
  const other = settings.errorPolicy === 'exclude' ? headline.infraAsFailure : headline.infraExcluded
  return {
    rate: percent(primary.rate),
    ci: percentInterval(primary.ci),
    level,
    method: intervalMethod(primary.method),
    policy: errorPolicyText(settings.errorPolicy),
    tasks: primary.tasks,
    trials: primary.trials,
    other: `With ${errorPolicyText(otherPolicy)}: ${percent(other.rate)} (${figureDetails(other, level)}).`,
    passed: summary.passed,
    n: summary.n,
    neverPassed: taskLinks(summary, headline.neverPassed.slice(0, MAX_CALLOUT_TASKS), taskIndex),
    neverPassedCount: headline.neverPassed.length,
    flakyCount: hasRepeatedTrials(summary) ? headline.flaky.length : null,
    settings: settingsText(settings),
  }
}

/** `toy/broken (0/10)` per key, each opening its task. */
export function taskLinks(
  summary: RunSummary,
  keys: readonly string[],
  taskIndex: ReadonlyMap<string, number>,
): TaskLink[] {
  return keys.map((key) => {
    const index = taskIndex.get(key)
    const task = index === undefined ? undefined : summary.tasks[index]
    return {
      label: task ? `${key} (${fraction(task.passed, task.trials)})` : key,
      task: index ?? null,
    }
  })
}
