import type { TrendSeries } from '../api.ts'
import type { IndexedRun } from '../catalog/indexed-run.ts'
import { byText, seriesOf } from './series.ts'

/**
 * One series per benchmark × target, sorted by benchmark then target; each point a run's own figure as its
 * scores.json states it (rate, interval, tasks, trials: never recomputed here, so the chart shows what the bundle
 * says) and its verdict against the baseline it was compared with when it ran.
 */
export function trendSeries(runs: readonly IndexedRun[]): TrendSeries[] {
  const series: TrendSeries[] = []
  for (const members of seriesOf(runs).values()) {
    const { benchmark, target } = members[0]!.figure
    series.push({
      benchmark,
      target,
      points: members.map(({ run: { entry }, startedAt, figure }) => ({
        run: entry.run,
        runId: entry.runId,
        startedAt,
        rate: figure.rate,
        ci: figure.ci,
        tasks: figure.tasks,
        trials: figure.trials,
        method: figure.method,
        passed: figure.passed,
        gitSha: entry.gitSha,
        verdict: entry.verdict?.verdict ?? null,
        baseline: entry.verdict?.baseline ?? null,
      })),
    })
  }
  return series.sort((a, b) => byText(a.benchmark, b.benchmark) || byText(a.target, b.target))
}
