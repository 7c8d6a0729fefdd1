import { integer, usd } from '../format.ts'
import type { Bar, Chart } from './page-data.ts'
import type { HtmlReportTotals } from './report-aggregates.ts'
import type { BenchmarkRow } from './summary-tables.ts'

const BINS = 12

/**
 * Cost and tokens per benchmark, and how cost and tokens spread over trials. Bins are made here, with the report's
 * number formats, so the page only draws.
 */
export function chartsData(benchmarks: readonly BenchmarkRow[], totals: HtmlReportTotals): Chart[] {
  const costByBenchmark = new Map(benchmarks.map((b) => [b.id, b.cost]))
  // The summary's order, as the cost chart's, not the order the trials happened to end in.
  const tokensByBenchmark = new Map<string, number>()
  for (const id of costByBenchmark.keys()) tokensByBenchmark.set(id, totals.tokensByBenchmark.get(id) ?? 0)
  for (const [id, tokens] of totals.tokensByBenchmark)
    if (!tokensByBenchmark.has(id)) tokensByBenchmark.set(id, tokens)
  const charts: Chart[] = [
    { id: 'cost-by-benchmark', title: 'Cost per benchmark (USD)', bars: bars(costByBenchmark, usd) },
    {
      id: 'tokens-by-benchmark',
      title: 'Tokens per benchmark',
      bars: bars(tokensByBenchmark, integer),
    },
  ]
  // Each read once: a long run's columns are read back from a file.
  const costs = totals.costs
  if (costs.length > 0) {
    charts.push(
      { id: 'cost-per-trial', title: 'Trials by cost (USD)', bars: histogram(costs, usd) },
      { id: 'tokens-per-trial', title: 'Trials by tokens', bars: histogram(totals.tokens, integer) },
    )
  }
  return charts
}

function bars(values: ReadonlyMap<string, number>, format: (v: number) => string): Bar[] {
  return [...values].map(([label, value]) => ({ label, value, text: format(value) }))
}

/** Equal-width bins from the least to the most; one bin when every value is the same. */
export function histogram(values: readonly number[], format: (v: number) => string): Bar[] {
  let min = Infinity
  let max = -Infinity
  for (const v of values) {
    if (v < min) min = v
    if (v > max) max = v
  }
  if (values.length === 0) return []
  if (max === min) return [{ label: format(min), value: values.length, text: integer(values.length) }]
  const width = (max - min) / BINS
  const counts = new Array<number>(BINS).fill(0)
  for (const v of values) counts[Math.min(BINS - 1, Math.floor((v - min) / width))]! += 1
  return counts.map((count, i) => ({
    label: `${format(min + i * width)}–${format(min + (i + 1) * width)}`,
    value: count,
    text: integer(count),
  }))
}
