import type { RegisteredTrials, ScoredTrial, TraceEvent } from '../../core/index.ts'
import { recordKey, trialKeyString } from '../layout.ts'
import type { MergeShard } from './read-inputs.ts'

/** Every input's trials, in bundle order (benchmark, task, trial), as one run writes them. */
export function unionTrials(shards: readonly MergeShard[]): ScoredTrial[] {
  return shards.flatMap((s) => s.bundle.scores.trials).sort(bundleOrder)
}

function bundleOrder(a: ScoredTrial, b: ScoredTrial): number {
  return cmp(a.benchmark.id, b.benchmark.id) || cmp(a.taskId, b.taskId) || a.trial - b.trial
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The inputs' events, each trial's together, trials in the order given, under the merged run's id. Each input's
 * events of a trial keep their order (steps ascending, as its bundle was checked to hold them).
 */
export function* eventsInOrder(
  shards: readonly MergeShard[],
  trials: readonly ScoredTrial[],
  runId: string,
): Generator<TraceEvent> {
  const byTrial = new Map<string, TraceEvent[]>()
  for (const shard of shards) {
    for (const event of shard.bundle.events) {
      const key = trialKeyString({
        benchmark: event.benchmark ?? '',
        taskId: event.taskId,
        trial: event.trial,
      })
      let events = byTrial.get(key)
      if (!events) byTrial.set(key, (events = []))
      events.push(event)
    }
  }
  for (const trial of trials) {
    for (const event of byTrial.get(trialKeyString(recordKey(trial))) ?? []) yield { ...event, runId }
  }
}

/**
 * The registered trials of every input, one entry per task with the union of its trial numbers; undefined when an
 * input kept none (written before registered trials were), as then the union would claim too little.
 */
export function unionRegistered(shards: readonly MergeShard[]): RegisteredTrials[] | undefined {
  if (shards.some((s) => s.bundle.metadata.registeredTrials === undefined)) return undefined
  const byTask = new Map<string, RegisteredTrials>()
  for (const shard of shards) {
    for (const r of shard.bundle.metadata.registeredTrials!) {
      const key = `${r.benchmark}\u0000${r.taskId}`
      const known = byTask.get(key)
      byTask.set(key, {
        benchmark: r.benchmark,
        taskId: r.taskId,
        trials: [...new Set([...(known?.trials ?? []), ...r.trials])].sort((a, b) => a - b),
      })
    }
  }
  return [...byTask.values()].sort((a, b) => cmp(a.benchmark, b.benchmark) || cmp(a.taskId, b.taskId))
}
