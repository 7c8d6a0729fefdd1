// Which shard bundles a `vitest --merge-reports` run merges: found in the runs folder (flat, or one folder per CI
// artifact) by the run ids the replayed cases carry, checked for every shard index before anything is merged.
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunMetadata } from '../../src/core/index.ts'
import { findBundles, missingLine, planMerge, type FoundBundle } from '../../reporters/shard-bundles.ts'
import { makeMetadata, makeTrials, tempDir } from '../bundles/fixtures.ts'

let runs: { path: string; remove: () => Promise<void> }

beforeEach(async () => {
  runs = await tempDir('aeo-shard-bundles-')
})
afterEach(async () => {
  await runs.remove()
})

function metadata(runId: string, shard: RunMetadata['shard'], extra: Record<string, unknown> = {}) {
  const base = makeMetadata(makeTrials(), { runId })
  return { ...base, shard, status: shard ? 'partial-shard' : 'complete', ...extra }
}

async function bundle(relativeDir: string, meta: object): Promise<string> {
  const dir = join(runs.path, relativeDir)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'metadata.json'), JSON.stringify(meta))
  return dir
}

const ids = (bundles: readonly FoundBundle[]) => bundles.map((b) => b.metadata.runId)

describe('the shard bundles of a merge-reports run', () => {
  it('finds bundles in the runs folder and one folder below (an artifact each), and skips what is no bundle', async () => {
    await bundle('r1', metadata('r1', { index: 1, count: 2 }))
    await bundle('bundle-shard-2/r2', metadata('r2', { index: 2, count: 2 }))
    await bundle('broken', { runId: 'x' })
    await bundle('.staging/r3', metadata('r3', null))
    const found = await findBundles(runs.path)
    expect(found.map((b) => relative(runs.path, b.dir)).sort()).toEqual(['bundle-shard-2/r2', 'r1'])
  })

  it('merges when every shard index has its bundle, in shard order', async () => {
    await bundle('a/r2', metadata('r2', { index: 2, count: 2 }))
    await bundle('b/r1', metadata('r1', { index: 1, count: 2 }))
    const plan = planMerge(['r2', 'r1'], await findBundles(runs.path))
    expect(plan.kind).toBe('merge')
    expect(plan.kind === 'merge' && ids(plan.bundles)).toEqual(['r1', 'r2'])
  })

  it('names a shard whose bundle is missing by its index and, its cases having been replayed, its run id', async () => {
    await bundle('r1', metadata('r1', { index: 1, count: 2 }))
    const plan = planMerge(['r1', 'r2'], await findBundles(runs.path))
    expect(plan).toMatchObject({ kind: 'missing', missing: [{ runId: 'r2', shard: { index: 2, count: 2 } }] })
    if (plan.kind !== 'missing') throw new Error(plan.kind)
    const line = missingLine(plan.found, plan.missing, runs.path)
    expect(line).toContain('the bundle of shard 2/2 (run r2) is not in')
    // The folders as the reporter shows them: relative to where the merge job runs, wherever the checkout is.
    const shown = (dir: string) => relative(process.cwd(), dir) || dir
    expect(
      line.endsWith(`npx agentevalops merge ${shown(join(runs.path, 'r1'))} ${shown(join(runs.path, 'r2'))}`),
    ).toBe(true)
    expect(line).not.toContain('\n')
  })

  it('names a shard index that no replayed case and no bundle accounts for', async () => {
    await bundle('r1', metadata('r1', { index: 1, count: 3 }))
    await bundle('r2', metadata('r2', { index: 2, count: 3 }))
    const plan = planMerge(['r1', 'r2'], await findBundles(runs.path))
    expect(plan).toMatchObject({ kind: 'missing', missing: [{ runId: null, shard: { index: 3, count: 3 } }] })
    if (plan.kind !== 'missing') throw new Error(plan.kind)
    expect(missingLine(plan.found, plan.missing, runs.path)).toMatch(/merge .* <bundle of shard 3\/3>$/)
  })

  it('does not pair run ids with shard indexes when more than one of each is missing', async () => {
    await bundle('r1', metadata('r1', { index: 1, count: 3 }))
    const plan = planMerge(['r1', 'r2', 'r3'], await findBundles(runs.path))
    expect(plan).toMatchObject({
      kind: 'missing',
      missing: [
        { runId: 'r2', shard: null },
        { runId: 'r3', shard: null },
        { runId: null, shard: { index: 2 } },
        { runId: null, shard: { index: 3 } },
      ],
    })
  })

  it('takes the empty bundle of a shard that drew no task (no case names it) from the run group', async () => {
    const group = { runGroup: 'g1' }
    await bundle('r1', metadata('r1', { index: 1, count: 3 }, group))
    await bundle('r2', metadata('r2', { index: 2, count: 3 }, group))
    await bundle('r3', metadata('r3', { index: 3, count: 3 }, { ...group, trialCount: 0 }))
    // Of another run: not taken.
    await bundle('x3', metadata('x3', { index: 3, count: 3 }, { runGroup: 'g2', trialCount: 0 }))
    const plan = planMerge(['r1', 'r2'], await findBundles(runs.path))
    expect(plan.kind).toBe('merge')
    expect(plan.kind === 'merge' && ids(plan.bundles)).toEqual(['r1', 'r2', 'r3'])
  })

  it('takes a bundle merged from exactly these shards as made already, and never as a shard', async () => {
    await bundle('r1', metadata('r1', { index: 1, count: 2 }))
    await bundle('r2', metadata('r2', { index: 2, count: 2 }))
    await bundle('m', metadata('r1', null, { mergedFrom: ['r1', 'r2'] }))
    const plan = planMerge(['r1', 'r2'], await findBundles(runs.path))
    expect(plan.kind).toBe('merged')
    expect(plan.kind === 'merged' && relative(runs.path, plan.bundle.dir)).toBe('m')
  })

  it('takes a bundle merged from every replayed run as the run’s when the shards’ bundles are elsewhere', async () => {
    // `agentevalops merge shards/runs --output runs` ran first; merge-reports looks in runs.
    await bundle('m', metadata('m', null, { mergedFrom: ['r1', 'r2', 'r3'] }))
    const plan = planMerge(['r1', 'r2'], await findBundles(runs.path))
    expect(plan).toMatchObject({ kind: 'merged', shards: 3 })
    // One that lacks a replayed run is not.
    expect(planMerge(['r1', 'r4'], await findBundles(runs.path)).kind).toBe('missing')
  })

  it('has nothing to merge for the cases of one unsharded run, or of several', async () => {
    await bundle('r1', metadata('r1', null))
    await bundle('r2', metadata('r2', null))
    const found = await findBundles(runs.path)
    expect(planMerge(['r1'], found).kind).toBe('one')
    expect(planMerge(['r1', 'r2'], found).kind).toBe('unsharded')
  })
})
