// `agentevalops prune`, in process, on bundles written by the bundle writer: what it reads in a runs folder,
// the baseline AGENTEVALOPS_BASELINE names, and the interrupted bundle that is the only copy of its benchmark.
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { listRunFolders } from '../../src/bundles/prune-plan.ts'
import { writeBundle } from '../../src/bundles/index.ts'
import type { RunStatus } from '../../src/core/index.ts'
import { bundleInput, FIXTURE_BENCHMARK, tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let runsDir: string
beforeEach(async () => {
  work = await tempDir('aeo-prune-cli-')
  runsDir = join(work.path, 'runs')
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await work.remove()
})

/** A real bundle of `benchmark` in runsDir, finished at minute `minute`. */
async function bundle(runId: string, benchmark: string, minute: number, status: RunStatus = 'complete') {
  const input = await bundleInput(join(work.path, `src-${runId}`), {
    runId,
    benchmarks: [{ ...FIXTURE_BENCHMARK, id: benchmark }],
  })
  const finishedAt = `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`
  return writeBundle({ ...input, runsDir, metadata: { ...input.metadata, status, finishedAt } })
}

describe('agentevalops prune (in process)', () => {
  it('reads sealed bundles with their status and benchmarks, and passes over other folders', async () => {
    await bundle('toy-a', 'toy', 1)
    await bundle('toy-b', 'toy', 2, 'interrupted')
    await mkdir(join(runsDir, 'half'), { recursive: true })
    await writeFile(join(runsDir, 'half', 'metadata.json'), '{}')
    await mkdir(join(runsDir, '.staging', 'live'), { recursive: true })
    const folders = await listRunFolders(runsDir)
    expect(folders.map((f) => [f.name, f.bundle?.status, f.bundle?.benchmarkIds])).toEqual([
      ['half', undefined, undefined],
      ['toy-a', 'complete', ['toy']],
      ['toy-b', 'interrupted', ['toy']],
    ])
  })

  it('keeps the bundle AGENTEVALOPS_BASELINE names and the only copy of a benchmark', async () => {
    await bundle('toy-1', 'toy', 1)
    await bundle('toy-2', 'toy', 2)
    await bundle('toy-3', 'toy', 3)
    await bundle('toy-cut', 'toy', 4, 'interrupted')
    await bundle('other-cut-1', 'other', 5, 'interrupted')
    await bundle('other-cut-2', 'other', 6, 'interrupted')
    vi.stubEnv('AGENTEVALOPS_BASELINE', join(runsDir, 'toy-1'))
    const { code, lines, stderr } = await runCli('prune', '--keep', '1', '--runs-dir', runsDir)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(lines.filter((l) => l.startsWith('kept')).map((l) => l.replace(runsDir, 'RUNS'))).toEqual([
      'kept    RUNS/other-cut-2: interrupted, but the only bundle of other',
      'kept    RUNS/toy-1: a baseline (named in AGENTEVALOPS_BASELINE)',
    ])
    expect(lines.slice(0, -1).filter((l) => l.startsWith('removed ')).length).toBe(3)
    expect(lines.at(-1)).toMatch(/^removed 3 of 6 bundle\(s\) in .* \(\d+\.\d KiB\); 3 kept$/)
    expect((await readdir(runsDir)).sort()).toEqual(['other-cut-2', 'toy-1', 'toy-3'])
  })
})
