import type { TaskCell, TaskHistoryKind, TaskHistoryResponse, TaskHistoryRow } from '../api.ts'
import type { IndexedRun } from '../catalog/indexed-run.ts'
import { byText, seriesKey, seriesOf } from './series.ts'

/** What a run says of a task: every trial passed, none did, or some did. */
type Outcome = 'pass' | 'fail' | 'split'

const KIND_ORDER: Record<TaskHistoryKind, number> = { 'never-passed': 0, flaky: 1, flipped: 2, stable: 3 }

/**
 * The tasks of one benchmark × target across the runs of its series (the runs trendSeries draws, oldest first):
 * each task's counts per run, its changes of outcome and its kind (see TaskHistoryKind in api.ts). The counts are
 * scores.json's per-task counts as the index kept them, never recomputed from traces.
 *
 * scores.json counts a task over every target that ran its benchmark in the run, so a run whose benchmark had
 * several targets cannot say how this target did on a task: such runs are listed in `pooledRuns`, not as columns.
 */
export function taskHistory(
  runs: readonly IndexedRun[],
  benchmark: string,
  target: string,
): TaskHistoryResponse {
  const members = seriesOf(runs).get(seriesKey(benchmark, target)) ?? []
  const pooled = members.filter(({ run }) => targetsOf(run, benchmark).length > 1)
  const columns = members.filter(({ run }) => targetsOf(run, benchmark).length <= 1).map((m) => m.run)

  const cellsByTask = new Map<string, { taskId: string; cells: (TaskCell | null)[] }>()
  columns.forEach((run, column) => {
    for (const task of run.tasks) {
      if (task.benchmark !== benchmark) continue
      const key = `${benchmark}/${task.taskId}`
      let row = cellsByTask.get(key)
      if (!row) {
        row = { taskId: task.taskId, cells: columns.map(() => null) }
        cellsByTask.set(key, row)
      }
      row.cells[column] = { trials: task.trials, passed: task.passed }
    }
  })

  const tasks = [...cellsByTask].map(([taskKey, { taskId, cells }]) => row(taskKey, taskId, cells))
  tasks.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || byText(a.taskKey, b.taskKey))
  return {
    benchmark,
    target,
    runs: columns.map((run) => run.entry.run),
    tasks,
    ...(pooled.length > 0 ? { pooledRuns: pooled.map(({ run }) => run.entry.run) } : {}),
  }
}

/** The targets a run ran the benchmark with: as the index lists them, else as its headline groups name them. */
function targetsOf(run: IndexedRun, benchmark: string): string[] {
  const listed = run.targetsByBenchmark[benchmark]
  if (listed) return [...new Set(listed)]
  return [...new Set(run.entry.groups.filter((g) => g.benchmark === benchmark).map((g) => g.target))]
}

function row(taskKey: string, taskId: string, cells: (TaskCell | null)[]): TaskHistoryRow {
  // A run that lists the task with no trial says nothing of it: it is read as a run without the task.
  const present = cells.flatMap((cell, column) =>
    cell && cell.trials > 0 ? [{ column, outcome: outcomeOf(cell) }] : [],
  )
  let flips = 0
  for (let i = 1; i < present.length; i++) if (present[i]!.outcome !== present[i - 1]!.outcome) flips++
  const last = present.at(-1)
  const beforeLast = present.at(-2)
  const lastRunChanged =
    last !== undefined &&
    beforeLast !== undefined &&
    last.column === cells.length - 1 &&
    last.outcome !== beforeLast.outcome

  let kind: TaskHistoryKind
  let direction: TaskHistoryRow['direction'] = null
  if (present.every((p) => p.outcome === 'fail')) kind = 'never-passed'
  else if (flips >= 2 || present.some((p) => p.outcome === 'split')) kind = 'flaky'
  else if (lastRunChanged) {
    kind = 'flipped'
    direction = last.outcome === 'pass' ? 'improved' : 'regressed'
  } else kind = 'stable'
  return { taskKey, taskId, kind, cells, flips, direction }
}

function outcomeOf(cell: TaskCell): Outcome {
  if (cell.passed >= cell.trials) return 'pass'
  return cell.passed === 0 ? 'fail' : 'split'
}
