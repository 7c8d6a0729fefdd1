import { runUrl, type TrendPoint, type TrendSeries, type Verdict } from '../../../src/view/api.ts'
import { rateWithInterval } from '../format.ts'
import { VERDICT_TEXT } from './badges.tsx'

/** The chart's frame in SVG units: the plot area is where rates 0..1 map, 100 % at its top. */
export const CHART = { width: 640, height: 220, left: 44, right: 12, top: 12, bottom: 28 } as const
const PLOT_HEIGHT = CHART.height - CHART.top - CHART.bottom
const PLOT_WIDTH = CHART.width - CHART.left - CHART.right
const TICKS = [0, 0.25, 0.5, 0.75, 1]

/** y of a rate, clipped to the plot: a t interval may reach past 0 or 100 %. */
export function yOf(rate: number): number {
  const clipped = Math.min(1, Math.max(0, rate))
  return round(CHART.top + (1 - clipped) * PLOT_HEIGHT)
}

function xOf(index: number, count: number): number {
  return round(count <= 1 ? CHART.left + PLOT_WIDTH / 2 : CHART.left + (index / (count - 1)) * PLOT_WIDTH)
}

function round(n: number): number {
  return Math.round(n * 100) / 100
}

type Mark = Verdict | 'none'
const MARKS: readonly Mark[] = ['GO', 'NO_GO', 'INCONCLUSIVE', 'INSUFFICIENT_EVIDENCE', 'none']

/** A shape per verdict, so it reads without colour too: circle, square, diamond, triangle, ring. */
function Marker({ mark }: { mark: Mark }) {
  switch (mark) {
    case 'GO':
      return <circle r={4.5} class="mark mark-GO" />
    case 'NO_GO':
      return <rect x={-4.5} y={-4.5} width={9} height={9} class="mark mark-NO_GO" />
    case 'INCONCLUSIVE':
      return <path d="M0 -5.5 L5.5 0 L0 5.5 L-5.5 0 Z" class="mark mark-INCONCLUSIVE" />
    case 'INSUFFICIENT_EVIDENCE':
      return <path d="M0 -5.5 L5 4 L-5 4 Z" class="mark mark-INSUFFICIENT_EVIDENCE" />
    case 'none':
      return <circle r={4} class="mark mark-none" />
  }
}

function markOf(point: TrendPoint): Mark {
  return point.verdict ?? 'none'
}

function pointTitle(point: TrendPoint): string {
  const verdict = point.verdict
    ? ` · ${VERDICT_TEXT[point.verdict]} against ${point.baseline ?? 'its baseline'}`
    : ''
  return `${point.runId}: ${rateWithInterval(point.rate, point.ci)} (${point.tasks} tasks, ${point.trials} trials)${verdict}`
}

/**
 * One benchmark × target over its runs, oldest on the left: each run's pass rate with its interval as a whisker,
 * marked by its verdict against its baseline. A point opens its run.
 */
export function TrendChart({ series }: { series: TrendSeries }) {
  const count = series.points.length
  const unrated = series.points.filter((p) => p.rate === null).length
  const marks = MARKS.filter((m) => series.points.some((p) => p.rate !== null && markOf(p) === m))
  const first = series.points[0]
  const last = series.points[count - 1]
  return (
    <figure
      class="trend"
      data-testid="trend-chart"
      data-benchmark={series.benchmark}
      data-target={series.target}
    >
      <figcaption>
        {`${series.benchmark} × ${series.target}`}
        <span class="muted small">{` · ${count} runs${unrated ? `, ${unrated} without a rate` : ''}`}</span>
      </figcaption>
      <svg
        class="trend-svg"
        viewBox={`0 0 ${CHART.width} ${CHART.height}`}
        role="img"
        aria-label={`Pass rate of ${series.benchmark} × ${series.target} over ${count} runs`}
      >
        <rect
          class="plot"
          data-testid="trend-plot"
          x={CHART.left}
          y={CHART.top}
          width={PLOT_WIDTH}
          height={PLOT_HEIGHT}
        />
        {TICKS.map((t) => (
          <g key={t} class="tick">
            <line x1={CHART.left} x2={CHART.width - CHART.right} y1={yOf(t)} y2={yOf(t)} />
            <text x={CHART.left - 6} y={yOf(t) + 4} text-anchor="end">{`${t * 100} %`}</text>
          </g>
        ))}
        {first ? (
          <text class="axis" x={CHART.left} y={CHART.height - 8}>
            {first.startedAt.slice(0, 10)}
          </text>
        ) : null}
        {last && count > 1 ? (
          <text class="axis" x={CHART.width - CHART.right} y={CHART.height - 8} text-anchor="end">
            {last.startedAt.slice(0, 10)}
          </text>
        ) : null}
        {series.points.map((point, i) =>
          point.rate === null ? null : (
            <a
              key={point.run}
              href={runUrl('', point.run)}
              class="point"
              data-testid="trend-point"
              data-run={point.run}
              data-rate={point.rate}
              data-verdict={markOf(point)}
            >
              <title>{pointTitle(point)}</title>
              {point.ci ? (
                <line
                  class="ci"
                  data-testid="trend-ci"
                  x1={xOf(i, count)}
                  x2={xOf(i, count)}
                  y1={yOf(point.ci.upper)}
                  y2={yOf(point.ci.lower)}
                />
              ) : null}
              <g transform={`translate(${xOf(i, count)} ${yOf(point.rate)})`}>
                <Marker mark={markOf(point)} />
              </g>
            </a>
          ),
        )}
      </svg>
      <ul class="legend" data-testid="trend-legend">
        {marks.map((m) => (
          <li key={m}>
            <svg viewBox="-7 -7 14 14" width={14} height={14} aria-hidden="true">
              <Marker mark={m} />
            </svg>{' '}
            {m === 'none' ? 'no baseline' : VERDICT_TEXT[m]}
          </li>
        ))}
        <li>
          <svg viewBox="0 0 14 14" width={14} height={14} aria-hidden="true">
            <line class="ci" x1={7} x2={7} y1={1} y2={13} />
          </svg>{' '}
          interval
        </li>
      </ul>
    </figure>
  )
}
