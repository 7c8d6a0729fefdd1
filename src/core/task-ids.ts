import { AgentEvalOpsError } from './errors.ts'

/**
 * Refuses a task list that uses an id twice: a trial is (benchmark, task id, trial), so two tasks of one id would
 * run as separate cases and merge into one trial of the bundle. Every repeat is named, with the positions (from 0)
 * of both definitions in the list, as a dataset names the lines of both.
 */
export function assertUniqueTaskIds(
  tasks: readonly { id: string }[],
  benchmarkId: string,
  where = `benchmark ${JSON.stringify(benchmarkId)}`,
): void {
  const firstAt = new Map<string, number>()
  const problems: string[] = []
  tasks.forEach((task, index) => {
    const first = firstAt.get(task.id)
    if (first === undefined) firstAt.set(task.id, index)
    else
      problems.push(
        `task id ${JSON.stringify(task.id)} is used twice: tasks[${first}] and tasks[${index}] of ${where}.`,
      )
  })
  if (problems.length === 0) return
  throw new AgentEvalOpsError('TASK_INVALID', problems.join('\n'), {
    hint: 'Task ids must be unique within a benchmark: rename one of each pair.',
  })
}
