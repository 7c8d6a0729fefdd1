import { createHash } from 'node:crypto'

/** One shard of a run: its tasks are those shardOfTask gives this index. */
export interface Shard {
  /** 1-based: 1 ≤ index ≤ count. */
  index: number
  count: number
}

/**
 * The shard (1-based) that runs every trial of a task: a hash of the benchmark and task ids, so that each shard of a
 * run, on whatever machine, picks its tasks alone and alike, and adding or removing a task moves no other one.
 */
export function shardOfTask(benchmarkId: string, taskId: string, count: number): number {
  const digest = createHash('sha256').update(`${benchmarkId}\u0000${taskId}`).digest('hex')
  return (Number.parseInt(digest.slice(0, 8), 16) % count) + 1
}

/** Whether a task runs in `shard` (every task does when the run is not sharded). */
export function taskInShard(benchmarkId: string, taskId: string, shard: Shard | null): boolean {
  return shard === null || shardOfTask(benchmarkId, taskId, shard.count) === shard.index
}
