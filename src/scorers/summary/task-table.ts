import {
  heldColumns,
  type CategorySummary,
  type NumberColumn,
  type NumberColumns,
  type SummarySettings,
  type TaskSummary,
} from '../../core/index.ts'
import { estimateOf } from './estimate.ts'
import { clusterText } from './metric.ts'
import { reduceTrials } from './reduce.ts'
import { compareText, isInfraFailure, type TaskGroup } from './task-groups.ts'

/**
 * The per-task table's rows (trials, successes, pass rate, consistency, flakiness) and the pass rate per task
 * category (tasks without one are grouped as "(none)"), a task at a time.
 */
export class TaskTableFold {
  private readonly categories = new Map<string, { values: NumberColumn; trials: number; passed: number }>()

  constructor(
    private readonly settings: SummarySettings,
    private readonly columns: NumberColumns = heldColumns,
  ) {}

  /** The task's row, which the table does not keep: its caller does, or writes it out. */
  add(group: TaskGroup): TaskSummary {
    const n = group.trials.length
    const passed = group.trials.filter((t) => t.passed).length
    const p = passed / n
    const scores = group.trials.flatMap((t) => t.scores.map((s) => s.score))
    const row: TaskSummary = {
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
    const name = group.labels['category'] ?? '(none)'
    let category = this.categories.get(name)
    if (!category)
      this.categories.set(name, (category = { values: this.columns.column(), trials: 0, passed: 0 }))
    category.values.push(
      reduceTrials(
        group.trials.map((t) => (t.passed ? 1 : 0)),
        this.settings.reducer,
      ),
    )
    category.trials += n
    category.passed += passed
    return row
  }

  categorySummaries(): CategorySummary[] {
    return [...this.categories.entries()]
      .sort(([a], [b]) => compareText(a, b))
      .map(([category, { values: column, trials, passed }]) => {
        const values = column.values()
        return {
          category,
          tasks: values.length,
          trials,
          passed,
          // Within a category each task is its own cluster (clusterBy is the category itself).
          pass: estimateOf({ values, clusters: values.map((_, i) => clusterText(i)) }, this.settings),
        }
      })
  }
}

/** The pass rate per task category, of tasks in bundle order. */
export function categorySummaries(
  groups: readonly TaskGroup[],
  settings: SummarySettings,
): CategorySummary[] {
  const table = new TaskTableFold(settings)
  for (const group of groups) table.add(group)
  return table.categorySummaries()
}
