import type { RunnerTask, RunnerTaskResult, RunnerTestFile, RunnerTestSuite } from 'vitest'
import type { Vitest } from 'vitest/node'

/**
 * Task-level shards run every eval file, each with its own tasks, so the blob reports of a run hold one copy of an
 * eval file per shard. Vitest's merge keys test files by path and test cases by an id made of the file and the
 * case's position: it would keep the last copy and drop the other shards' trials from JUnit and from every
 * reporter. Called before the merge replays anything (onInit), this folds the copies of each file into one, with
 * every shard's cases, in place in the list Vitest replays. Returns how many copies were folded away.
 */
export function foldBlobCopies(vitest: Vitest): number {
  const files = vitest.state.blobs?.files
  return files ? foldFileCopies(files) : 0
}

/** The copies of one file (same project and path) folded into its first, in place. */
export function foldFileCopies(files: RunnerTestFile[]): number {
  const first = new Map<string, RunnerTestFile>()
  const kept: RunnerTestFile[] = []
  let folded = 0
  for (const file of files) {
    const key = `${file.projectName ?? ''}\u0000${file.filepath}`
    const target = first.get(key)
    if (!target) {
      first.set(key, file)
      kept.push(file)
      continue
    }
    folded++
    // Each copy's cases keep ids of their own: equal ids would make Vitest take them for one case.
    foldSuite(target, file, target, `_copy${folded}`)
  }
  if (folded > 0) files.splice(0, files.length, ...kept)
  return folded
}

/** Suites of the same name are one suite (a benchmark's describe in every shard); cases are each shard's own. */
function foldSuite(
  target: RunnerTestSuite,
  source: RunnerTestSuite,
  file: RunnerTestFile,
  suffix: string,
): void {
  for (const task of source.tasks) {
    const same =
      task.type === 'suite'
        ? target.tasks.find((t): t is RunnerTestSuite => t.type === 'suite' && t.name === task.name)
        : undefined
    if (same) {
      foldSuite(same, task as RunnerTestSuite, file, suffix)
      continue
    }
    adopt(task, target, file, suffix)
    target.tasks.push(task)
  }
  target.result = combinedResult(target.result, source.result)
}

function adopt(task: RunnerTask, parent: RunnerTestSuite, file: RunnerTestFile, suffix: string): void {
  task.id = `${task.id}${suffix}`
  task.file = file
  task.suite = parent
  if (task.type === 'suite') for (const child of task.tasks) adopt(child, task, file, suffix)
}

/** Failed if either failed; the time from the first start, the durations of both. */
function combinedResult(
  a: RunnerTaskResult | undefined,
  b: RunnerTaskResult | undefined,
): RunnerTaskResult | undefined {
  if (!a || !b) return a ?? b
  const state = a.state === 'fail' || b.state === 'fail' ? 'fail' : a.state === 'pass' ? a.state : b.state
  const starts = [a.startTime, b.startTime].filter((t): t is number => t !== undefined)
  return {
    ...a,
    state,
    ...(starts.length > 0 ? { startTime: Math.min(...starts) } : {}),
    ...(a.duration !== undefined || b.duration !== undefined
      ? { duration: (a.duration ?? 0) + (b.duration ?? 0) }
      : {}),
    ...(a.errors || b.errors ? { errors: [...(a.errors ?? []), ...(b.errors ?? [])] } : {}),
  }
}
