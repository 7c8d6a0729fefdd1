import type { RunEntry } from '../api.ts'

/** A task's counts in one run (scores.json summary.tasks), for the history across runs. */
export interface IndexedTask {
  benchmark: string
  taskId: string
  trials: number
  passed: number
}

/**
 * What the view's index keeps of one bundle: its runs-list row and its tasks' counts, all from the bundle's small
 * files (metadata.json, scores.json's summary, manifest.json), never traces.jsonl. Invalid and live runs have no tasks.
 */
export interface IndexedRun {
  entry: RunEntry
  tasks: IndexedTask[]
  /** The targets each benchmark ran with in this run (metadata targets; headline groups), for per-series history. */
  targetsByBenchmark: Record<string, string[]>
}
