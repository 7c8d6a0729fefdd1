import type { RunEntry } from '../../src/view/api.ts'

/** A benchmark × target pair: what a trend and a history are of. */
export type SeriesKey = {
  benchmark: string
  target: string
}

/** The pairs a run measured: its headline groups, or every benchmark with every target when it has none yet. */
export function seriesOf(entry: RunEntry): SeriesKey[] {
  if (entry.groups.length > 0) {
    const seen = new Map<string, SeriesKey>()
    for (const g of entry.groups) seen.set(pairKey(g), { benchmark: g.benchmark, target: g.target })
    return [...seen.values()]
  }
  return entry.benchmarks.flatMap((benchmark) => entry.targets.map((target) => ({ benchmark, target })))
}

export function pairKey(pair: SeriesKey): string {
  return JSON.stringify([pair.benchmark, pair.target])
}

function seriesSignature(entry: RunEntry): string {
  return seriesOf(entry).map(pairKey).sort().join('\n')
}

function startedMs(entry: RunEntry): number {
  const t = entry.startedAt === null ? NaN : Date.parse(entry.startedAt)
  return Number.isNaN(t) ? -Infinity : t
}

/** Valid runs, oldest first (by start, then name): the order of a series. */
export function validRunsInOrder(runs: readonly RunEntry[]): RunEntry[] {
  return runs
    .filter((r) => r.state === 'valid')
    .sort((a, b) => startedMs(a) - startedMs(b) || a.run.localeCompare(b.run))
}

/** The valid run before `entry` that measured the same benchmark × target pairs: what "compare with previous" means. */
export function previousRun(runs: readonly RunEntry[], entry: RunEntry): RunEntry | null {
  const signature = seriesSignature(entry)
  const ordered = validRunsInOrder(runs).filter((r) => seriesSignature(r) === signature)
  const at = ordered.findIndex((r) => r.run === entry.run)
  if (at > 0) return ordered[at - 1] ?? null
  if (at === 0) return null
  // A live or invalid run is not in the series: its previous is the series' latest run started before it.
  const before = ordered.filter((r) => startedMs(r) <= startedMs(entry))
  return before[before.length - 1] ?? null
}

/** The latest valid run and the one before it in its series: compare's default pair. */
export function lastTwo(runs: readonly RunEntry[]): { baseline: string; candidate: string } | null {
  const ordered = validRunsInOrder(runs)
  const latest = ordered[ordered.length - 1]
  if (!latest) return null
  const previous = previousRun(runs, latest)
  return previous ? { baseline: previous.run, candidate: latest.run } : null
}
