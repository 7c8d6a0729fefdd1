import { taskSummaries, type PassAtK, type SummaryHead, type TaskRows } from '../../core/index.ts'
import { percent, plural } from '../format.ts'
import { markdownTable } from '../markdown-table.ts'
import { hasRepeatedTrials } from '../summary-text.ts'

/** pass@k (some of k trials pass) and pass^k (all k pass) for k = 1 … the most trials a task has. */
export function passAtKSection(summary: SummaryHead, tasks: TaskRows): string {
  const heading = '## pass@k / pass^k'
  if (!hasRepeatedTrials(taskSummaries(tasks))) {
    return `${heading}\n\nEvery task ran once: pass@k and pass^k need several trials per task.`
  }
  const rows = summary.overall.passAtK.map((row) => [
    String(row.k),
    figure(row.passAtK, row),
    figure(row.passHatK, row),
    String(row.tasks),
  ])
  return [
    heading,
    '',
    markdownTable(['k', 'pass@k', 'pass^k', 'Tasks'], rows, ['right', 'right', 'right', 'right']),
    '',
    'pass@k: the chance that at least one of k trials passes; pass^k: that all k pass (unbiased estimates, ' +
      'averaged over tasks).',
  ].join('\n')
}

function figure(value: number | null, row: PassAtK): string {
  if (value !== null) return percent(value)
  return `undefined (${plural(row.undefinedTasks, 'task has', 'tasks have')} fewer than ${row.k} trials)`
}
