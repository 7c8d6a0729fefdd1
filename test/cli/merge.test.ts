// `agentevalops merge` through the CLI's io: a folder of shards merged into one bundle; each refusal the issue lists
// (a missing shard, a shard given twice, a mixed config hash, a trial in two shards) one line naming it, exit 2,
// nothing written.
import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FIXTURE_BENCHMARK, tempDir } from '../bundles/fixtures.ts'
import { shardRunId, writeShard } from '../bundles/shard-fixtures.ts'
import { readScores } from '../e2e/helpers.ts'
import { runCli } from './helpers.ts'

let work: { path: string; remove: () => Promise<void> }
let shards: string
let out: string

beforeEach(async () => {
  work = await tempDir('aeo-merge-cli-')
  shards = join(work.path, 'shards')
  out = join(work.path, 'out')
})
afterEach(async () => work.remove())

const shard = (index: number, count: number, tasks: string[], runsDir = shards, runId?: string) =>
  writeShard(work.path, runsDir, { shard: { index, count }, tasks, ...(runId ? { runId } : {}) })

async function written(): Promise<string[]> {
  return existsSync(out) ? readdir(out) : []
}

/** The refusal lines of a merge that must exit 2 and write nothing. */
async function refused(...args: string[]): Promise<string[]> {
  const result = await runCli('merge', ...args, '--output', out)
  expect(result.code, result.stderr).toBe(2)
  expect(result.stdout).toBe('')
  expect(await written()).toEqual([])
  const lines = result.stderr.split('\n')
  expect(lines.at(-1)).toBe('agentevalops merge: Nothing was written.')
  return lines.filter((l) => l.startsWith('agentevalops merge: refused: '))
}

describe('agentevalops merge', () => {
  it('merges the shards of a folder into one bundle in --output, under --run-id', async () => {
    await shard(2, 2, ['task-1', 'task-2'])
    await shard(1, 2, ['task-0'])
    const result = await runCli('merge', shards, '--output', out, '--run-id', 'all-of-it')
    expect(result.code, result.stderr).toBe(0)
    expect(result.lines).toEqual([
      `merged 2 bundle(s), 6 trial(s) → ${join(out, 'all-of-it')} (run all-of-it)`,
    ])
    expect(await written()).toEqual(['all-of-it'])
    const validated = await runCli('validate-bundle', join(out, 'all-of-it'))
    expect(validated.code, validated.stdout).toBe(0)

    // Merged into the shards' own folder, a second merge of that folder finds the merged bundle among them.
    await rename(join(out, 'all-of-it'), join(shards, 'all-of-it'))
    expect(await refused(shards)).toEqual([
      `agentevalops merge: refused: ${join(shards, 'all-of-it')} (complete, run all-of-it) is the bundle merged ` +
        'from shards given here already (its mergedFrom names them): leave it out, or give an output folder apart from the shards',
    ])
  })

  it('refuses a missing shard, naming it', async () => {
    await shard(1, 3, ['task-0'])
    await shard(3, 3, ['task-2'])
    expect(await refused(shards)).toEqual([
      'agentevalops merge: refused: shard 2/3 is missing: give its bundle too (all 3 shards of the run are needed)',
    ])
  })

  it('refuses a shard given twice, naming both', async () => {
    const one = await shard(1, 2, ['task-0'])
    const two = await shard(2, 2, ['task-1'])
    const copy = join(work.path, 'copy-of-1')
    await cp(one, copy, { recursive: true })
    expect(await refused(one, two, copy)).toEqual([
      `agentevalops merge: refused: ${copy} (shard 1/2, run ${shardRunId(1)}) is given twice (${one} is the same run): give each shard once`,
    ])
    const rerun = await shard(2, 2, ['task-2'], join(work.path, 'rerun'), shardRunId(6))
    expect(await refused(one, two, rerun)).toEqual([
      `agentevalops merge: refused: shard 2/2 is given twice: ${two} (shard 2/2, run ${shardRunId(2)}) and ${rerun} (shard 2/2, run ${shardRunId(6)}); give one of them`,
    ])
  })

  it('refuses shards of a different config hash, naming the one that differs', async () => {
    const one = await shard(1, 2, ['task-0'])
    const two = await writeShard(work.path, join(work.path, 'other'), {
      shard: { index: 2, count: 2 },
      tasks: ['task-1'],
      metadata: { configHash: 'e'.repeat(64) },
    })
    expect(await refused(one, two)).toEqual([
      `agentevalops merge: refused: ${two} (shard 2/2, run ${shardRunId(2)}) has configHash "${'e'.repeat(64)}" but ${one} (shard 1/2, run ${shardRunId(1)}) has "${'d'.repeat(64)}": it ran a different config, so it is not part of the same run`,
    ])
  })

  it('refuses a trial present in two shards, naming the trial and both shards', async () => {
    const one = await shard(1, 2, ['task-0', 'task-1'])
    const two = await shard(2, 2, ['task-1'])
    const both = `${one} (shard 1/2, run ${shardRunId(1)}) and ${two} (shard 2/2, run ${shardRunId(2)})`
    const why = 'the inputs overlap (shards of different splits, or a run merged with one of its own shards)'
    expect(await refused(shards)).toEqual([
      `agentevalops merge: refused: 2 trial(s) are in both ${both}: task "task-1" trial 0 (benchmark "toy"), ` +
        `task "task-1" trial 1 (benchmark "toy"); ${why}`,
    ])
  })

  it('judges the pass-rate gate the shards list on the merged run: exit 1 with the line when below, the bundle kept', async () => {
    const gated = (minPassRate: number) => ({
      metadata: { gates: [{ benchmark: FIXTURE_BENCHMARK.id, minPassRate }] },
    })
    const write = (dir: string, minPassRate: number) =>
      Promise.all([
        writeShard(work.path, dir, {
          shard: { index: 1, count: 2 },
          tasks: ['task-0'],
          ...gated(minPassRate),
        }),
        writeShard(work.path, dir, {
          shard: { index: 2, count: 2 },
          tasks: ['task-1', 'task-2'],
          ...gated(minPassRate),
        }),
      ])
    // The merged run's own pass rate, which no shard saw whole.
    await write(join(work.path, 'probe'), 0)
    const probe = await runCli('merge', join(work.path, 'probe'), '--output', join(work.path, 'probe-out'))
    expect(probe.code, probe.stderr).toBe(0)
    const [probed] = await readdir(join(work.path, 'probe-out'))
    const { trials } = await readScores(join(work.path, 'probe-out', probed!))
    const rate = trials.filter((t) => t.passed).length / trials.length
    expect(rate).toBeGreaterThan(0)
    expect(rate).toBeLessThan(1)
    expect(probe.stdout).toContain(
      `agentevalops merge: gate toy: pass rate ${rate.toFixed(3)} over 6 trials reaches 0`,
    )

    await write(shards, Math.min(1, rate + 0.01))
    const below = await runCli('merge', shards, '--output', out)
    expect(below.code, below.stderr).toBe(1)
    expect(below.stderr).toContain(
      `agentevalops merge: gate toy: pass rate ${rate.toFixed(3)} over 6 trials is below ${Math.min(1, rate + 0.01)}`,
    )
    // The run's bundle is written all the same: the gate judges it, it does not make it.
    const [dir] = await written()
    const merged = await runCli('validate-bundle', join(out, dir!))
    expect(merged.code, merged.stdout).toBe(0)
  })

  it('refuses shards that gate a benchmark differently', async () => {
    const one = await writeShard(work.path, shards, {
      shard: { index: 1, count: 2 },
      tasks: ['task-0'],
      metadata: { gates: [{ benchmark: FIXTURE_BENCHMARK.id, minPassRate: 0.5 }] },
    })
    const two = await writeShard(work.path, shards, {
      shard: { index: 2, count: 2 },
      tasks: ['task-1'],
      metadata: { gates: [{ benchmark: FIXTURE_BENCHMARK.id, minPassRate: 0.9 }] },
    })
    expect(await refused(one, two)).toEqual([
      `agentevalops merge: refused: ${two} (shard 2/2, run ${shardRunId(2)}) gates toy at a pass rate of 0.9, ` +
        `${one} (shard 1/2, run ${shardRunId(1)}) at 0.5: they are not shards of one run`,
    ])
  })

  it('refuses a folder that holds no bundle; a call without inputs is a usage error', async () => {
    const nothing = join(work.path, 'nothing')
    await mkdir(nothing)
    expect(await refused(nothing)).toEqual([
      `agentevalops merge: refused: ${nothing} is neither a bundle nor a folder holding bundles`,
    ])
    const usage = await runCli('merge', '--output', out)
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('give the shard bundles to merge')
  })
})
