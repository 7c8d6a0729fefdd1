import type { GroupFigure } from '../api.ts'
import type { IndexedRun } from '../catalog/indexed-run.ts'

/*
 * Which runs make up a benchmark × target series, and in what order: the trends and the task history must agree on
 * both, or a point of the chart would have no column in the history grid.
 */

/**
 * Statuses whose figures describe the whole run. An interrupted run's figure covers only the trials that finished,
 * and a shard's only its part of the tasks (its merge carries the whole): as points of a trend they would show a
 * drop, or a jump, that no change of the agent made. `findBaseline` refuses them as baselines for the same reason.
 */
const WHOLE_RUN_STATUSES: ReadonlySet<string> = new Set(['complete', 'monitor'])

/** A run of a series with its figure for the series' benchmark × target. */
export interface SeriesMember {
  run: IndexedRun
  startedAt: string
  figure: GroupFigure
}

/** Benchmark and target of a series, as one key. */
export function seriesKey(benchmark: string, target: string): string {
  return `${benchmark}\u0000${target}`
}

/**
 * Every series of these runs, by key, each oldest first (startedAt, then run id). Runs that are not valid, are live,
 * are not whole (see WHOLE_RUN_STATUSES) or have no start time are in none. A run that names two targets of the same
 * name on one benchmark (one runner under two settings) has two figures for one series and is left out of that
 * series: no one figure of it is the target's.
 */
export function seriesOf(runs: readonly IndexedRun[]): Map<string, SeriesMember[]> {
  const series = new Map<string, SeriesMember[]>()
  for (const run of runs) {
    const { entry } = run
    if (entry.state !== 'valid' || !WHOLE_RUN_STATUSES.has(entry.status) || entry.startedAt === null) continue
    const figures = entry.groups.length > 0 ? entry.groups : entry.headline ? [entry.headline] : []
    const byKey = new Map<string, GroupFigure[]>()
    for (const figure of figures) {
      const key = seriesKey(figure.benchmark, figure.target)
      byKey.set(key, [...(byKey.get(key) ?? []), figure])
    }
    for (const [key, [figure, ...others]] of byKey) {
      if (!figure || others.length > 0) continue
      const members = series.get(key) ?? []
      members.push({ run, startedAt: entry.startedAt, figure })
      series.set(key, members)
    }
  }
  for (const members of series.values()) members.sort(olderFirst)
  return series
}

function olderFirst(a: SeriesMember, b: SeriesMember): number {
  return byText(a.startedAt, b.startedAt) || byText(a.run.entry.runId, b.run.entry.runId)
}

/** Code-unit order: the same on every machine, whatever its locale. */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
