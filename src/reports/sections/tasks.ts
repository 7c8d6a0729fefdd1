import { taskSummaries, type TaskRows, type TaskSummary } from '../../core/index.ts'
import { decimal, percent } from '../format.ts'
import { markdownTable, type Align } from '../markdown-table.ts'
import { hasRepeatedTrials, taskKeyOf } from '../summary-text.ts'

/**
 * Per task, when some task ran more than once: trials, passes, rate and consistency, the tasks that never passed
 * first, then the flaky ones (least reliable first), then the rest.
 */
export function tasksSection(tasks: TaskRows): string | undefined {
  if (!hasRepeatedTrials(taskSummaries(tasks))) return undefined
  // Every row is listed, sorted by concern: held together here (a run whose tasks ran more than once).
  const all = Array.from(taskSummaries(tasks))
  const multiBenchmark = new Set(all.map((t) => t.benchmarkId)).size > 1
  const withInfra = all.some((t) => t.infraFailures > 0)
  const headers = [
    'Task',
    'Trials',
    'Passed',
    'Pass rate',
    'Consistency',
    'Flaky',
    ...(withInfra ? ['Infra failures'] : []),
  ]
  const rows = all
    .sort(byConcern)
    .map((t) => [
      multiBenchmark ? taskKeyOf(t) : t.taskId,
      String(t.trials),
      String(t.passed),
      percent(t.passRate),
      decimal(t.consistency, 2),
      t.flaky ? 'yes' : t.passed === 0 ? 'no (never passed)' : 'no',
      ...(withInfra ? [String(t.infraFailures)] : []),
    ])
  const align = headers.map((h): Align => (h === 'Task' || h === 'Flaky' ? 'left' : 'right'))
  return [
    '## Tasks',
    '',
    markdownTable(headers, rows, align),
    '',
    'Consistency: (2p − 1)², 1 when every trial of a task agrees, 0 at a coin flip.',
  ].join('\n')
}

function rank(task: TaskSummary): number {
  if (task.passed === 0) return 0
  return task.flaky ? 1 : 2
}

function byConcern(a: TaskSummary, b: TaskSummary): number {
  return rank(a) - rank(b) || a.passRate - b.passRate || compare(taskKeyOf(a), taskKeyOf(b))
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
