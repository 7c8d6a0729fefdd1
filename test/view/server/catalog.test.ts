// The view's index of a runs folder: rows from the bundles' small files (equal to what scores.json says), a new
// bundle listed on the next /api/runs without a restart, the cache on disk reused (an unchanged folder is not read
// again), a corrupt cache ignored and rebuilt, and a cache folder that prune and the baseline search pass over.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findBaseline, listRunFolders, validateBundle } from '../../../src/bundles/index.ts'
import type { ScoresFile } from '../../../src/core/index.ts'
import type { RunEntry, RunsResponse } from '../../../src/view/api.ts'
import { Catalog, defaultCacheFile, readRunEntry } from '../../../src/view/catalog/index.ts'
import { startViewServer } from '../../../src/view/server/index.ts'
import { flipByte, restampManifest, tempDir } from '../../bundles/fixtures.ts'
import { addBundle, getJson } from './helpers.ts'

const RUN_A = '0190f5a0-0000-7000-8000-00000000000a'
const RUN_B = '0190f5a0-0000-7000-8000-00000000000b'
const RUN_C = '0190f5a0-0000-7000-8000-00000000000c'

let work: Awaited<ReturnType<typeof tempDir>>
let runsDir: string

beforeAll(async () => {
  work = await tempDir('aeo-view-catalog-')
  runsDir = join(work.path, 'view-runs')
  await mkdir(runsDir)
  await addBundle(runsDir, work.path, RUN_A)
  await addBundle(runsDir, work.path, RUN_B)
}, 60_000)
afterAll(async () => work?.remove())

/** A catalog whose reads are counted, by folder. */
function counted(options: { cacheFile?: string | null } = {}) {
  const reads: string[] = []
  const catalog = new Catalog(runsDir, {
    ...options,
    readEntry: (dir, folder) => {
      reads.push(folder)
      return readRunEntry(dir, folder)
    },
  })
  return { catalog, reads }
}

describe('readRunEntry', () => {
  it('a valid bundle’s row says what its scores.json and metadata.json say', async () => {
    const { entry, tasks, targetsByBenchmark } = await readRunEntry(runsDir, RUN_A)
    const scores = JSON.parse(await readFile(join(runsDir, RUN_A, 'scores.json'), 'utf8')) as ScoresFile
    const group = scores.summary.headline.groups![0]!
    expect(entry).toMatchObject({
      run: RUN_A,
      runId: RUN_A,
      state: 'valid',
      problems: [],
      status: 'complete',
      benchmarks: ['toy'],
      targets: ['mock-scripted'],
      gitSha: 'c'.repeat(40),
      labels: { suite: 'fixture' },
      trials: scores.summary.n,
      passed: scores.summary.passed,
      costUsd: scores.summary.usage.costUsd,
      verdict: null,
    })
    expect(entry.groups).toEqual([
      {
        benchmark: 'toy',
        target: 'mock-scripted',
        rate: group.primary.rate,
        ci: group.primary.ci,
        method: group.primary.method,
        tasks: group.primary.tasks,
        trials: group.primary.trials,
        passed: group.passed,
      },
    ])
    expect(entry.headline?.rate).toBe(scores.summary.headline.primary.rate)
    expect(tasks).toEqual(
      scores.summary.tasks.map((t) => ({
        benchmark: t.benchmarkId,
        taskId: t.taskId,
        trials: t.trials,
        passed: t.passed,
      })),
    )
    expect(targetsByBenchmark).toEqual({ toy: ['mock-scripted'] })
  })

  it('never reads traces.jsonl: a bundle whose traces are damaged (same size) still reads as valid here', async () => {
    const dir = join(work.path, 'traces-damaged')
    await mkdir(dir)
    const copy = await addBundle(dir, work.path, RUN_C)
    await flipByte(join(copy, 'traces.jsonl'), 10)
    expect((await validateBundle(copy)).length).toBeGreaterThan(0)
    expect((await readRunEntry(dir, RUN_C)).entry.state).toBe('valid')
  })

  it('a small file changed after sealing is invalid, with the problem as validate-bundle words it', async () => {
    const dir = join(work.path, 'metadata-damaged')
    await mkdir(dir)
    const copy = await addBundle(dir, work.path, RUN_C)
    const path = join(copy, 'metadata.json')
    await writeFile(path, (await readFile(path, 'utf8')).replace('"suite": "fixture"', '"suite": "fixturf"'))
    const { entry, tasks } = await readRunEntry(dir, RUN_C)
    expect(entry.state).toBe('invalid')
    expect(entry.problems).toEqual([
      'metadata.json: sha256 does not match manifest.json (changed after the bundle was sealed)',
    ])
    expect(tasks).toEqual([])
  })
})

describe('the catalog', () => {
  it('lists a bundle that appears, on the next /api/runs, without a restart', async () => {
    const server = await startViewServer({
      runsDir,
      port: 0,
      catalog: new Catalog(runsDir, { cacheFile: null }),
    })
    try {
      const before = await getJson<RunsResponse>(server.port, '/api/runs')
      expect(before.runs.map((r) => r.run).sort()).toEqual([RUN_A, RUN_B])
      const staged = join(work.path, 'appearing')
      await mkdir(staged)
      await addBundle(staged, work.path, RUN_C)
      // As the bundle reporter seals: the finished folder renamed into the runs folder.
      await rename(join(staged, RUN_C), join(runsDir, RUN_C))
      const after = await getJson<RunsResponse>(server.port, '/api/runs')
      expect(after.runs.map((r) => r.run).sort()).toEqual([RUN_A, RUN_B, RUN_C])
      expect(after.runs.find((r) => r.run === RUN_C)!.state).toBe('valid')
      expect((await getJson<RunEntry>(server.port, `/api/runs/${RUN_C}`)).runId).toBe(RUN_C)
    } finally {
      await server.close()
      await rename(join(runsDir, RUN_C), join(work.path, 'appearing', RUN_C))
    }
  })

  it('reuses its cache: a folder whose manifest did not change is not read again, a changed one is', async () => {
    const cacheFile = defaultCacheFile(runsDir)
    const first = counted()
    await first.catalog.refresh()
    expect(first.reads.sort()).toEqual([RUN_A, RUN_B])
    expect(JSON.parse(await readFile(cacheFile, 'utf8'))).toMatchObject({ version: 1 })

    const second = counted()
    await second.catalog.refresh()
    expect(second.reads).toEqual([])
    expect(second.catalog.runs().map((r) => r.entry)).toEqual(first.catalog.runs().map((r) => r.entry))

    // A re-sealed bundle (its manifest written again): that folder alone is read.
    await restampManifest(join(runsDir, RUN_B), RUN_B)
    const third = counted()
    await third.catalog.refresh()
    expect(third.reads).toEqual([RUN_B])
    // And the same catalog re-scanning with nothing changed reads nothing.
    await third.catalog.refresh()
    expect(third.reads).toEqual([RUN_B])
  })

  it('ignores a corrupt cache and rebuilds it', async () => {
    const cacheFile = defaultCacheFile(runsDir)
    for (const corrupt of [
      '{not json',
      JSON.stringify({ version: 1, runs: [{ folder: RUN_A, stamp: 'x', run: 42 }] }),
    ]) {
      await writeFile(cacheFile, corrupt)
      const { catalog, reads } = counted()
      await catalog.refresh()
      expect(reads.sort()).toEqual([RUN_A, RUN_B])
      expect(catalog.runs()).toHaveLength(2)
      expect(JSON.parse(await readFile(cacheFile, 'utf8'))).toMatchObject({ version: 1 })
    }
  })

  it('does not trust a planted cache row: a stamp it did not make reads the folder again', async () => {
    const cacheFile = defaultCacheFile(runsDir)
    const honest = counted()
    await honest.catalog.refresh()
    const cache = JSON.parse(await readFile(cacheFile, 'utf8')) as {
      runs: { folder: string; stamp: string; run: { entry: RunEntry } }[]
    }
    // A runs folder unpacked from an archive with an index claiming figures its bundle does not have.
    for (const row of cache.runs) {
      row.stamp = row.stamp.replace(/:(\d+):(\d+)$/, ':1:1')
      row.run.entry.passed = 999
    }
    await writeFile(cacheFile, JSON.stringify(cache))
    const { catalog, reads } = counted()
    await catalog.refresh()
    expect(reads.sort()).toEqual([RUN_A, RUN_B])
    expect(catalog.runs().every((r) => r.entry.passed !== 999)).toBe(true)
  })

  it('leaves prune’s listing and the baseline search as they were: the cache folder is not a run', async () => {
    await new Catalog(runsDir).refresh()
    expect((await listRunFolders(runsDir)).map((f) => f.name)).toEqual([RUN_A, RUN_B])
    const latest = await findBaseline('latest', runsDir, { benchmarkIds: ['toy'] })
    expect([RUN_A, RUN_B].map((r) => join(runsDir, r))).toContain(latest)
  })
})
