import type { CategorySummary, SummarySettings, TaskSummary } from '../../core/index.ts'
import { estimateOf } from './estimate.ts'
import { reduceTrials } from './reduce.ts'
import { clusterOf, compareText, isInfraFailure, type TaskGroup } from './task-groups.ts'

/** Per task: trials, successes, pass rate, consistency and whether it is flaky. */
export function taskSummaries(groups: readonly TaskGroup[]): TaskSummary[] {
  return groups.map((group) => {
    const n = group.trials.length
    const passed = group.trials.filter((t) => t.passed).length
    const p = passed / n
    const scores = group.trials.flatMap((t) => t.scores.map((s) => s.score))
    return {
      benchmarkId: group.benchmarkId,
      taskId: group.taskId,
      category: group.labels['category'] ?? null,
      trials: n,
      passed,
      passRate: p,
      consistency: (2 * p - 1) ** 2,
      flaky: passed > 0 && passed < n,
      infraFailures: group.trials.filter(isInfraFailure).length,
      meanScore: scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length,
      costUsd: group.trials.reduce((sum, t) => sum + t.usage.costUsd, 0),
    }
  })
}

/** The pass rate per task category (tasks without one are grouped as "(none)"). */
export function categorySummaries(
  groups: readonly TaskGroup[],
  settings: SummarySettings,
): CategorySummary[] {
  const byCategory = new Map<string, TaskGroup[]>()
  for (const group of groups) {
    const category = group.labels['category'] ?? '(none)'
    // Appended in place: a copy per task made this quadratic (100,000 tasks of one category: minutes at the run's end).
    const members = byCategory.get(category)
    if (members) members.push(group)
    else byCategory.set(category, [group])
  }
  return [...byCategory.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([category, members]) => {
      const values = members.map((g) =>
        reduceTrials(
          g.trials.map((t) => (t.passed ? 1 : 0)),
          settings.reducer,
        ),
      )
      return {
        category,
        tasks: members.length,
        trials: members.reduce((sum, g) => sum + g.trials.length, 0),
        passed: members.reduce((sum, g) => sum + g.trials.filter((t) => t.passed).length, 0),
        pass: estimateOf({ values, clusters: members.map((g) => clusterOf(g, null)) }, settings),
      }
    })
}
