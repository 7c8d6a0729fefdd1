import type { TrendsResponse } from '../../../src/view/api.ts'
import { Loading, Problem } from '../components/problem.tsx'
import { TrendChart } from '../components/trend-chart.tsx'
import { useLiveData } from '../context.ts'
import { withQuery } from '../router.ts'

/** A chart per benchmark × target, or only the one the query names. */
export function TrendsPage({ benchmark, target }: { benchmark: string | null; target: string | null }) {
  const loaded = useLiveData<TrendsResponse>('trends', (client) => client.trends())
  const shown = loaded?.ok
    ? loaded.data.series.filter(
        (s) => (!benchmark || s.benchmark === benchmark) && (!target || s.target === target),
      )
    : []
  return (
    <section data-testid="page-trends">
      <h1>Trends</h1>
      {benchmark || target ? (
        <p>
          <a href="/trends">All series</a>
        </p>
      ) : null}
      {!loaded ? <Loading what="the trends" /> : null}
      {loaded && !loaded.ok ? <Problem text={loaded.error} /> : null}
      {loaded?.ok && shown.length === 0 ? (
        <p class="muted">No series to show yet: no valid run has a pass rate.</p>
      ) : null}
      {shown.map((s) => (
        <div key={`${s.benchmark}\n${s.target}`} class="trend-block">
          <TrendChart series={s} />
          <p class="small">
            <a href={withQuery('/history', { benchmark: s.benchmark, target: s.target })}>Task history</a>
          </p>
        </div>
      ))}
    </section>
  )
}
