// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, expect, test, vi } from 'vitest'
import type { TrendPoint, TrendSeries, TrendsResponse, Verdict } from '../../../src/view/api.ts'
import { App } from '../../../ui/view/app.tsx'
import { TrendChart } from '../../../ui/view/components/trend-chart.tsx'
import { at, FakeEventSource, runEntry, stubServer } from './fixtures.ts'

afterEach(() => {
  render(null, document.body)
  vi.unstubAllGlobals()
})

function point(i: number, rate: number | null, verdict: Verdict | null = null): TrendPoint {
  return {
    run: `run-${i}`,
    runId: `run-${i}`,
    startedAt: `2026-11-${String(i + 1).padStart(2, '0')}T10:00:00.000Z`,
    rate,
    ci: rate === null ? null : { lower: Math.max(0, rate - 0.1), upper: Math.min(1, rate + 0.08) },
    tasks: 10,
    trials: 30,
    verdict,
    baseline: verdict ? `run-${i - 1}` : null,
  }
}

/** The plot's frame as the chart drew it, so the expected y of a rate comes from the picture, not from the code. */
function plotFrame(chart: Element) {
  const plot = chart.querySelector('[data-testid="trend-plot"]')!
  const top = Number(plot.getAttribute('y'))
  const height = Number(plot.getAttribute('height'))
  return (rate: number) => top + (1 - rate) * height
}

function markerY(element: Element): number {
  const transform = element.querySelector('g[transform]')!.getAttribute('transform')!
  const match = /translate\(([\d.]+) ([\d.]+)\)/.exec(transform)
  if (!match) throw new Error(`not a translate: ${transform}`)
  return Number(match[2])
}

test('a trend draws a point per run with its interval as a whisker, 100 % at the top of the plot', () => {
  const rates = Array.from({ length: 30 }, (_, i) => 0.4 + i * 0.015)
  const series: TrendSeries = { benchmark: 'toy', target: 'mock', points: rates.map((r, i) => point(i, r)) }
  render(<TrendChart series={series} />, document.body)
  const chart = document.querySelector('[data-testid="trend-chart"]')!
  expect(chart.getAttribute('data-benchmark')).toBe('toy')
  expect(chart.getAttribute('data-target')).toBe('mock')
  const points = [...chart.querySelectorAll('[data-testid="trend-point"]')]
  expect(points).toHaveLength(30)
  expect(chart.querySelectorAll('[data-testid="trend-ci"]')).toHaveLength(30)
  const y = plotFrame(chart)
  points.forEach((p, i) => {
    const expected = series.points[i]!
    expect(p.getAttribute('data-run')).toBe(expected.run)
    expect(Number(p.getAttribute('data-rate'))).toBe(expected.rate)
    expect(markerY(p)).toBeCloseTo(y(expected.rate!), 1)
    const ci = p.querySelector('[data-testid="trend-ci"]')!
    expect(Number(ci.getAttribute('y1'))).toBeCloseTo(y(expected.ci!.upper), 1)
    expect(Number(ci.getAttribute('y2'))).toBeCloseTo(y(expected.ci!.lower), 1)
    expect(ci.getAttribute('x1')).toBe(ci.getAttribute('x2'))
  })
  // Left to right in run order.
  const xs = points.map((p) => Number(p.querySelector('[data-testid="trend-ci"]')!.getAttribute('x1')))
  expect(xs).toEqual([...xs].sort((a, b) => a - b))
  expect(new Set(xs).size).toBe(30)
})

test('points are marked by verdict with a legend, titled with run, rate and interval, and link to their run', () => {
  const series: TrendSeries = {
    benchmark: 'toy',
    target: 'mock',
    points: [
      point(0, 0.5),
      point(1, 0.7, 'GO'),
      point(2, 0.4, 'NO_GO'),
      point(3, 0.45, 'INCONCLUSIVE'),
      point(4, null),
    ],
  }
  render(<TrendChart series={series} />, document.body)
  const points = [...document.querySelectorAll('[data-testid="trend-point"]')]
  expect(points.map((p) => p.getAttribute('data-verdict'))).toEqual(['none', 'GO', 'NO_GO', 'INCONCLUSIVE'])
  expect(points[1]!.querySelector('title')!.textContent).toBe(
    'run-1: 70.0 % [60.0, 78.0] (10 tasks, 30 trials) · GO against run-0',
  )
  expect(points[2]!.getAttribute('href')).toBe('/runs/run-2')
  const legend = [...document.querySelectorAll('[data-testid="trend-legend"] li')].map((li) =>
    (li.textContent ?? '').trim(),
  )
  expect(legend).toEqual(['GO', 'NO GO', 'inconclusive', 'no baseline', 'interval'])
  expect(document.querySelector('figcaption')!.textContent).toContain('5 runs, 1 without a rate')
})

test('the trends page draws a chart per series from /api/trends, or the one series its query names', async () => {
  FakeEventSource.install()
  const trends: TrendsResponse = {
    series: [
      { benchmark: 'toy', target: 'mock', points: [point(0, 0.5), point(1, 0.6)] },
      { benchmark: 'toy', target: 'claude', points: [point(2, 0.9)] },
    ],
  }
  stubServer({ '/api/trends': trends, '/api/runs': { runsDir: '/x', runs: [runEntry('run-0')] } })
  at('/trends')
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelectorAll('[data-testid="trend-chart"]')).toHaveLength(2))
  render(null, document.body)
  at('/trends?benchmark=toy&target=claude')
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelectorAll('[data-testid="trend-chart"]')).toHaveLength(1))
  expect(document.querySelector('[data-testid="trend-chart"]')!.getAttribute('data-target')).toBe('claude')
})
