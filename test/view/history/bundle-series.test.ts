import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateBundle } from '../../../src/bundles/index.ts'
import { RunMetadata, ScoresFile } from '../../../src/core/index.ts'
import { statsSummaryRecomputer } from '../../../src/scorers/index.ts'
import { tempDir } from '../../bundles/fixtures.ts'
import { writeBundleSeries, type SeriesRun } from '../../support/bundle-series.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let runs: SeriesRun[]

beforeAll(async () => {
  work = await tempDir('aeo-bundle-series-')
  runs = await writeBundleSeries(join(work.path, 'bundles'))
})

afterAll(async () => {
  await work.remove()
})

describe('writeBundleSeries', () => {
  it('writes 30 bundles that pass validate-bundle, summaries recomputed', async () => {
    expect(runs).toHaveLength(30)
    for (const run of runs)
      expect(await validateBundle(run.dir, { recomputeSummary: statsSummaryRecomputer })).toEqual([])
  })

  it('gives them increasing start times, git shas, labels, and each after the first its comparison with the one before', async () => {
    const starts: string[] = []
    for (const [i, run] of runs.entries()) {
      const metadata = RunMetadata.parse(JSON.parse(await readFile(join(run.dir, 'metadata.json'), 'utf8')))
      const scores = ScoresFile.parse(JSON.parse(await readFile(join(run.dir, 'scores.json'), 'utf8')))
      starts.push(metadata.startedAt)
      expect(metadata.git.sha).toMatch(/^[0-9a-f]{40}$/)
      expect(metadata.labels).toEqual({ suite: 'series', build: String(i + 1) })
      expect(scores.summary.comparison?.baseline.runId).toBe(i === 0 ? undefined : runs[i - 1]!.runId)
    }
    expect([...starts].sort()).toEqual(starts)
    expect(new Set(starts).size).toBe(30)
  })
})
