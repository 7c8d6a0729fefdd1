import type { Chart } from '../../src/reports/html/page-data.ts'

const WIDTH = 460
const LABEL = 180
const VALUE = 80
const BAR_HEIGHT = 16
const BAR_GAP = 6
const LABEL_CHARS = 30

/** Horizontal bars as inline SVG, one per benchmark or bin. Labels and value texts come formatted in the data. */
export function BarChart({ chart }: { chart: Chart }) {
  const { bars } = chart
  const max = bars.reduce((m, b) => Math.max(m, b.value), 0) || 1
  const room = WIDTH - LABEL - VALUE
  const height = bars.length * (BAR_HEIGHT + BAR_GAP) + BAR_GAP
  return (
    <figure class="chart">
      <figcaption>{chart.title}</figcaption>
      {bars.length === 0 ? (
        <p class="muted">Nothing to draw.</p>
      ) : (
        <svg
          viewBox={`0 0 ${WIDTH} ${height}`}
          width={WIDTH}
          height={height}
          role="img"
          aria-label={chart.title}
          data-testid={`chart-${chart.id}`}
        >
          {bars.map((bar, i) => {
            const y = BAR_GAP + i * (BAR_HEIGHT + BAR_GAP)
            const width = bar.value > 0 ? Math.max(1, (room * bar.value) / max) : 0
            return (
              <g key={i} data-testid="bar" data-value={bar.value}>
                <title>{`${bar.label}: ${bar.text}`}</title>
                <text x={LABEL - 6} y={y + BAR_HEIGHT - 4} text-anchor="end" class="chart-label">
                  {clip(bar.label, LABEL_CHARS)}
                </text>
                <rect x={LABEL} y={y} width={width} height={BAR_HEIGHT} class="chart-bar" />
                <text x={LABEL + width + 4} y={y + BAR_HEIGHT - 4} class="chart-value">
                  {bar.text}
                </text>
              </g>
            )
          })}
        </svg>
      )}
    </figure>
  )
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
