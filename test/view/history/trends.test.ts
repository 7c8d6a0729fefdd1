import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IndexedRun } from '../../../src/view/catalog/indexed-run.ts'
import { trendSeries } from '../../../src/view/history/index.ts'
import { tempDir } from '../../bundles/fixtures.ts'
import { writeBundleSeries, type SeriesRun } from '../../support/bundle-series.ts'
import { readIndexedRuns } from './indexed-runs.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let series: SeriesRun[]
let indexed: IndexedRun[]

beforeAll(async () => {
  work = await tempDir('aeo-trends-')
  const runsDir = join(work.path, 'bundles')
  series = await writeBundleSeries(runsDir)
  // Newest first: the order the runs come in must not be the order of the points.
  indexed = (await readIndexedRuns(runsDir)).reverse()
})

afterAll(async () => {
  await work.remove()
})

/** scores.json as the bundle has it, read apart from the index. */
async function scoresOf(run: SeriesRun) {
  return JSON.parse(await readFile(join(run.dir, 'scores.json'), 'utf8')) as {
    summary: {
      headline: {
        groups: {
          primary: { rate: number; ci: { lower: number; upper: number }; tasks: number; trials: number }
        }[]
      }
      comparison?: { verdict: string; baseline: { runId: string } }
    }
  }
}

describe('trendSeries over a folder of 30 bundles of one benchmark', () => {
  it('gives one series of 30 points, oldest first, each with the figure and interval its scores.json states', async () => {
    const trends = trendSeries(indexed)
    expect(trends.map((s) => [s.benchmark, s.target])).toEqual([['series-bench', 'improving-agent']])
    const { points } = trends[0]!
    expect(points.map((p) => p.run)).toEqual(series.map((r) => r.runId))
    expect(points.map((p) => p.startedAt)).toEqual(series.map((r) => r.startedAt))
    for (const [i, point] of points.entries()) {
      const { primary } = (await scoresOf(series[i]!)).summary.headline.groups[0]!
      expect(point.rate).toBe(primary.rate)
      expect(point.ci).toEqual(primary.ci)
      expect([point.tasks, point.trials]).toEqual([primary.tasks, primary.trials])
      expect(point.ci!.lower).toBeLessThanOrEqual(point.rate!)
      expect(point.ci!.upper).toBeGreaterThanOrEqual(point.rate!)
      expect(point.ci!.upper).toBeGreaterThan(point.ci!.lower)
      expect(point.gitSha).toMatch(/^[0-9a-f]{40}$/)
    }
  })

  it('shows the target improving', () => {
    const rates = trendSeries(indexed)[0]!.points.map((p) => p.rate!)
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
    expect(rates.at(-1)!).toBeGreaterThan(rates[0]!)
    expect(mean(rates.slice(-10))).toBeGreaterThan(mean(rates.slice(0, 10)) + 0.2)
  })

  it("marks each run's verdict against the baseline it was compared with, and none where there was no baseline", async () => {
    const { points } = trendSeries(indexed)[0]!
    expect(points[0]).toMatchObject({ verdict: null, baseline: null })
    for (const [i, point] of points.entries()) {
      if (i === 0) continue
      const { comparison } = (await scoresOf(series[i]!)).summary
      expect(comparison).toBeDefined()
      expect(point.verdict).toBe(comparison!.verdict)
      expect(point.baseline).toBe(series[i - 1]!.runId)
    }
  })
})
