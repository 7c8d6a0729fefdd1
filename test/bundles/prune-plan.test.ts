// The rule of `agentevalops prune --keep N`: which folders of a runs folder go, which stay and why; and where the
// project's files name a baseline bundle.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findBundleReferences } from '../../src/bundles/baseline-references.ts'
import { planPrune, type RunFolder } from '../../src/bundles/prune-plan.ts'
import type { RunStatus } from '../../src/core/index.ts'
import { tempDir } from './fixtures.ts'

/** A sealed bundle folder of `benchmarks` that finished at minute `minute` of a fixed hour. */
function bundle(
  name: string,
  benchmarks: string[],
  minute: number,
  status: RunStatus = 'complete',
): RunFolder {
  const finishedAt = `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`
  return {
    name,
    dir: `/runs/${name}`,
    bundle: { runId: name, status, benchmarkIds: [...benchmarks].sort(), finishedAt },
  }
}

function plan(folders: RunFolder[], keep: number, baselines: string[] = []) {
  const result = planPrune(folders, { keep, baselines: new Set(baselines) })
  return {
    removed: result.remove.map((f) => f.name).sort(),
    kept: Object.fromEntries(result.keep.map((k) => [k.folder.name, k.reason])),
  }
}

describe('planPrune', () => {
  it('keeps the N newest complete bundles of each benchmark and removes the older ones', () => {
    const folders = [
      bundle('toy-1', ['toy'], 1),
      bundle('toy-2', ['toy'], 2),
      bundle('toy-3', ['toy'], 3),
      bundle('toy-4', ['toy'], 4),
      bundle('he-1', ['humaneval'], 5),
      bundle('he-2', ['humaneval'], 6),
    ]
    expect(plan(folders, 2)).toEqual({
      removed: ['toy-1', 'toy-2'],
      kept: { 'toy-4': 'newest', 'toy-3': 'newest', 'he-2': 'newest', 'he-1': 'newest' },
    })
    expect(plan(folders, 1).removed).toEqual(['he-1', 'toy-1', 'toy-2', 'toy-3'])
  })

  it('orders by finish time, not by folder name', () => {
    const folders = [bundle('b', ['toy'], 1), bundle('a', ['toy'], 9)]
    expect(plan(folders, 1)).toEqual({ removed: ['b'], kept: { a: 'newest' } })
  })

  it('never removes a bundle a baseline names, whatever its age or status', () => {
    const folders = [
      bundle('old', ['toy'], 1),
      bundle('mid', ['toy'], 2),
      bundle('cut', ['toy'], 3, 'interrupted'),
      bundle('new', ['toy'], 4),
    ]
    expect(plan(folders, 1, ['old', 'cut'])).toEqual({
      removed: ['mid'],
      kept: { new: 'newest', old: 'baseline', cut: 'baseline' },
    })
  })

  it('groups a run of several benchmarks on its own, so --baseline latest finds what it found before', () => {
    const folders = [
      bundle('both-1', ['toy', 'humaneval'], 1),
      bundle('both-2', ['humaneval', 'toy'], 2),
      bundle('toy-1', ['toy'], 3),
      bundle('toy-2', ['toy'], 4),
      bundle('he-1', ['humaneval'], 5),
    ]
    // Newer toy-only and humaneval-only runs do not push out the newest run of both.
    expect(plan(folders, 1)).toEqual({
      removed: ['both-1', 'toy-1'],
      kept: { 'both-2': 'newest', 'toy-2': 'newest', 'he-1': 'newest' },
    })
  })

  it('removes interrupted bundles once their benchmarks have a complete one, else keeps the newest', () => {
    const withComplete = [
      bundle('done', ['toy'], 1),
      bundle('cut-1', ['toy'], 2, 'interrupted'),
      bundle('cut-2', ['toy'], 3, 'interrupted'),
    ]
    expect(plan(withComplete, 3)).toEqual({ removed: ['cut-1', 'cut-2'], kept: { done: 'newest' } })

    const onlyInterrupted = [
      bundle('cut-1', ['toy'], 1, 'interrupted'),
      bundle('cut-2', ['toy'], 2, 'interrupted'),
    ]
    expect(plan(onlyInterrupted, 5)).toEqual({ removed: ['cut-1'], kept: { 'cut-2': 'only-copy' } })
  })

  it('leaves shard bundles and folders that are not sealed bundles alone', () => {
    const folders: RunFolder[] = [
      bundle('shard-1', ['toy'], 1, 'partial-shard'),
      bundle('shard-2', ['toy'], 2, 'partial-shard'),
      { name: 'half-written', dir: '/runs/half-written' },
      bundle('toy-1', ['toy'], 3),
    ]
    expect(plan(folders, 1)).toEqual({
      removed: [],
      kept: { 'shard-1': 'shard', 'shard-2': 'shard', 'half-written': 'not-a-bundle', 'toy-1': 'newest' },
    })
  })

  it('refuses a keep count that is not a positive integer', () => {
    for (const keep of [0, -1, 1.5, Number.NaN])
      expect(() => planPrune([], { keep, baselines: new Set() })).toThrow(RangeError)
  })
})

describe('findBundleReferences', () => {
  let project: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    project = await tempDir('aeo-prune-refs-')
  })
  afterEach(async () => project.remove())

  async function write(rel: string, text: string) {
    await mkdir(join(project.path, rel, '..'), { recursive: true })
    await writeFile(join(project.path, rel), text)
  }

  it('finds runs/<name> paths and run ids in the files that configure runs, with file and line', async () => {
    const uuid = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
    await write(
      'vitest.config.ts',
      `export default {\n  plugins: [agentEvalOps({ baseline: './runs/pinned' })],\n}\n`,
    )
    await write('evals/x.eval.ts', `evalBenchmark({ baseline: join('runs', '${uuid}') })\n`)
    await write('.github/workflows/ci.yml', 'env:\n  AGENTEVALOPS_BASELINE: runs/from-ci\n')
    await write('.env', 'AGENTEVALOPS_BASELINE=/abs/path/runs/from-env\n')
    await write('configs/nightly.yaml', 'name: nightly # runs/nightly-2 is in the docs, not here\n')
    // Not read: installed packages, other hidden folders, the runs folder itself, prose.
    await write('node_modules/pkg/index.js', "const b = 'runs/in-deps'\n")
    await write('.cache/x.json', '"runs/in-cache"')
    await write('runs/pinned/replay_command.txt.json', '"runs/in-runs"')
    await write('NOTES.md', 'runs/in-notes')
    const names = new Set([
      'pinned',
      uuid,
      'from-ci',
      'from-env',
      'nightly-2',
      'nightly',
      'in-deps',
      'in-cache',
      'in-runs',
      'in-notes',
      'unnamed',
    ])
    const found = await findBundleReferences({
      roots: [project.path],
      runsDir: join(project.path, 'runs'),
      names,
    })
    expect(Object.fromEntries(found)).toEqual({
      pinned: 'vitest.config.ts:2',
      [uuid]: 'evals/x.eval.ts:1',
      'from-ci': '.github/workflows/ci.yml:2',
      'from-env': '.env:1',
      'nightly-2': 'configs/nightly.yaml:1',
    })
  })
})
