import type { LiveEvent, RunEntry } from '../../src/view/api.ts'

/**
 * The runs list after a live event: a started run is added, its progress replaces its counts, its end replaces it
 * with the entry the list now has. `runs-changed` asks for the list again (`refetch`), which this cannot do. A
 * progress that arrives after the run's end (or after a list that already has it sealed) is stale and ignored: a
 * sealed run never goes live again (a watch rerun is a new run).
 */
export function applyLiveEvent(
  runs: readonly RunEntry[],
  event: LiveEvent,
): { runs: readonly RunEntry[]; refetch: boolean } {
  if (event.type === 'runs-changed') return { runs, refetch: true }
  const entry = event.run
  const at = runs.findIndex((r) => r.run === entry.run)
  if (at < 0) return { runs: [entry, ...runs], refetch: false }
  if (event.type !== 'run-ended' && runs[at]?.state !== 'live') return { runs, refetch: false }
  const next = runs.slice()
  next[at] = entry
  return { runs: next, refetch: false }
}
