import type { RunSummary, TaskSummary } from './summary.ts'

/** A run's summary without its per-task table, which a long run writes beside it a row at a time (TaskRows). */
export type SummaryHead = Omit<RunSummary, 'tasks'>

/** One task of the summary's table, with what the summary does not keep per task but report.html shows. */
export interface TaskRow {
  task: TaskSummary
  /** Tokens of the task's trials. */
  tokens: number
}

/**
 * summary.tasks in bundle order, which may be iterated more than once: held in memory, or in a file a run's seal
 * spilled them to as it folded each task, so that a 100,000-task table is never in memory whole.
 */
export interface TaskRows extends Iterable<TaskRow> {
  readonly count: number
}

/** The rows' task summaries, in order. */
export function* taskSummaries(rows: Iterable<TaskRow>): Generator<TaskSummary> {
  for (const row of rows) yield row.task
}

/** A summary and its task table, as the bundle's writers (scores.json, report.md, report.html) take them. */
export interface SealedSummary {
  summary: SummaryHead
  tasks: TaskRows
}

/** The rows of a task table in memory; a task's tokens from `tokensOf`, when known (0 otherwise). */
export function heldTaskRows(
  tasks: readonly TaskSummary[],
  tokensOf: (task: TaskSummary, index: number) => number = () => 0,
): TaskRows {
  return {
    count: tasks.length,
    *[Symbol.iterator]() {
      for (const [i, task] of tasks.entries()) yield { task, tokens: tokensOf(task, i) }
    },
  }
}

/** A whole summary as the writers take it; or the sealed form, as it is. */
export function sealedSummary(
  summary: RunSummary | SealedSummary,
  tokensOf?: (task: TaskSummary, index: number) => number,
): SealedSummary {
  if (isSealedSummary(summary)) return summary
  return { summary, tasks: heldTaskRows(summary.tasks, tokensOf) }
}

/** The summary with its task table in memory, its fields in the schema's order. */
export function wholeSummary(summary: RunSummary | SealedSummary): RunSummary {
  if (!isSealedSummary(summary)) return summary
  return withTasks(
    summary.summary,
    Array.from(summary.tasks, (row) => row.task),
  )
}

/** `head` with `tasks` in the place the schema gives the table (between evaluators and categories). */
export function withTasks<T>(head: SummaryHead, tasks: T): Omit<RunSummary, 'tasks'> & { tasks: T } {
  const { categories, usage, comparison, ...before } = head
  return {
    ...before,
    tasks,
    categories,
    usage,
    ...(comparison === undefined ? {} : { comparison }),
  }
}

export function isSealedSummary(summary: RunSummary | SealedSummary): summary is SealedSummary {
  return 'summary' in summary && 'tasks' in summary && !Array.isArray(summary.tasks)
}
