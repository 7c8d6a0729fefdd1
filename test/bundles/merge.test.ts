// mergeBundles on shard bundles written by writeBundle: one complete bundle whose statistics are recomputed over the
// union, with every trace, artifact and recording carried; and every refusal, by name, with nothing written.
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mergeBundles } from '../../reporters/merge-bundles.ts'
import { readBundle, validateBundle } from '../../src/bundles/index.ts'
import { mergeProblems } from '../../src/bundles/merge/input-checks.ts'
import { readInputs } from '../../src/bundles/merge/read-inputs.ts'
import { mergedReplayCommand } from '../../src/bundles/merge/replay-line.ts'
import { isAgentEvalOpsError, type RunMetadata } from '../../src/core/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, statsSummaryRecomputer, summarizeTrials } from '../../src/scorers/index.ts'
import { flipByte, tempDir } from './fixtures.ts'
import { artifactPath, recordingLine, shardRunId, writeShard, type ShardFixture } from './shard-fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
let shardsDir: string
let outDir: string

beforeEach(async () => {
  work = await tempDir('aeo-merge-')
  shardsDir = join(work.path, 'shards')
  outDir = join(work.path, 'out')
})
afterEach(async () => work.remove())

const shard = (index: number, count: number, tasks: string[], extra: Partial<ShardFixture> = {}) =>
  writeShard(work.path, shardsDir, { shard: { index, count }, tasks, ...extra })

/** The refusal's message, after checking it is MERGE_REFUSED and that nothing was written. */
async function refusal(dirs: readonly string[]): Promise<string> {
  let error: unknown
  try {
    await mergeBundles({ dirs, runsDir: outDir })
  } catch (e) {
    error = e
  }
  expect(isAgentEvalOpsError(error, 'MERGE_REFUSED'), String(error)).toBe(true)
  expect(existsSync(outDir) ? await readdir(outDir) : []).toEqual([])
  return (error as Error).message
}

describe('mergeBundles', () => {
  it('writes one complete bundle of every shard: trials, traces, artifacts and recordings, statistics recomputed', async () => {
    const two = await shard(2, 2, ['task-2'], {
      metadata: { resumedFrom: ['0190f5a0-0000-7000-8000-0000000000ff'] },
    })
    const one = await shard(1, 2, ['task-0', 'task-1', 'task-3'])
    const merged = await mergeBundles({ dirs: [two, one], runsDir: outDir, runId: 'merged-run' })
    expect(merged).toMatchObject({
      runId: 'merged-run',
      trials: 8,
      shards: 2,
      dir: join(outDir, 'merged-run'),
    })

    expect(await validateBundle(merged.dir, { recomputeSummary: statsSummaryRecomputer })).toEqual([])
    const bundle = await readBundle(merged.dir)
    const [a, b] = await Promise.all([readBundle(one), readBundle(two)])
    expect(bundle.metadata).toMatchObject({
      status: 'complete',
      shard: null,
      mergedFrom: [shardRunId(1), shardRunId(2)],
      resumedFrom: ['0190f5a0-0000-7000-8000-0000000000ff'],
      trialCount: 8,
      configHash: a.metadata.configHash,
    } satisfies Partial<RunMetadata>)
    expect(bundle.metadata.registeredTrials?.map((r) => r.taskId)).toEqual([
      'task-0',
      'task-1',
      'task-2',
      'task-3',
    ])
    // In bundle order (benchmark, task, trial): task-2 of shard 2 between shard 1's tasks.
    const byTask = (task: string) => [a, b].flatMap((s) => s.scores.trials.filter((t) => t.taskId === task))
    const tasks = ['task-0', 'task-1', 'task-2', 'task-3']
    expect(bundle.scores.trials).toEqual(tasks.flatMap(byTask))

    // Over the union, not an average of the shards' figures: 3 tasks in one shard, 1 in the other.
    const union = bundle.scores.trials.map((t) => ({ ...t, runId: 'merged-run' }))
    expect(bundle.scores.summary).toEqual(summarizeTrials(union, DEFAULT_SUMMARY_SETTINGS))
    const mean = (s: typeof bundle) => s.scores.summary!.overall.score.mean!
    expect(mean(bundle)).not.toBeCloseTo((mean(a) + mean(b)) / 2, 6)

    const eventsOf = (task: string) => [a, b].flatMap((s) => s.events.filter((e) => e.taskId === task))
    expect(new Set(bundle.events.map((e) => e.runId))).toEqual(new Set(['merged-run']))
    expect(bundle.events.map(({ runId: _r, ...e }) => e)).toEqual(
      tasks.flatMap(eventsOf).map(({ runId: _r, ...e }) => e),
    )

    for (const task of ['task-0', 'task-2'])
      expect(await readFile(join(merged.dir, artifactPath(task)), 'utf8')).toBe(`${task}\n`)
    const recordings = (await readFile(join(merged.dir, 'recordings.jsonl'), 'utf8')).trim().split('\n')
    expect(recordings).toEqual(['task-0', 'task-1', 'task-3', 'task-2'].map((t) => recordingLine(t)))

    const spans = (await readFile(join(merged.dir, 'spans.jsonl'), 'utf8')).trim().split('\n')
    const names = spans.flatMap((line) =>
      (
        JSON.parse(line) as {
          resourceSpans: { scopeSpans: { spans: { name: string; parentSpanId?: string }[] }[] }[]
        }
      ).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
    )
    expect(names.filter((s) => s.name === 'eval.run')).toHaveLength(1)
    expect(names.filter((s) => !s.parentSpanId)).toEqual(names.filter((s) => s.name === 'eval.run'))
    expect(bundle.report).toContain('merged-run')
    expect(bundle.replayCommand).toBe(
      '# from the Vitest root of the project\nnpx vitest run --project evals evals/a.eval.ts\n',
    )
  })

  it('takes a shard the partition gave no task: it holds no trial, and the others make the run', async () => {
    const dirs = [await shard(1, 3, ['task-0']), await shard(2, 3, []), await shard(3, 3, ['task-1'])]
    const merged = await mergeBundles({ dirs, runsDir: outDir })
    expect(await validateBundle(merged.dir, { recomputeSummary: statsSummaryRecomputer })).toEqual([])
    expect(merged).toMatchObject({ trials: 4, shards: 3 })
    expect((await readBundle(merged.dir)).metadata.mergedFrom).toEqual([1, 2, 3].map(shardRunId))
  })

  it('merges whole runs of disjoint work of one config; refuses whole runs that overlap', async () => {
    const first = await writeShard(work.path, shardsDir, {
      shard: null,
      tasks: ['task-0'],
      runId: shardRunId(7),
    })
    const second = await writeShard(work.path, shardsDir, {
      shard: null,
      tasks: ['task-1'],
      runId: shardRunId(8),
    })
    const merged = await mergeBundles({ dirs: [first, second], runsDir: outDir })
    expect(await validateBundle(merged.dir, { recomputeSummary: statsSummaryRecomputer })).toEqual([])
    expect((await readBundle(merged.dir)).metadata.mergedFrom).toEqual([shardRunId(7), shardRunId(8)])

    const again = await writeShard(work.path, join(work.path, 'more'), {
      shard: null,
      tasks: ['task-1'],
      runId: shardRunId(9),
    })
    const other = join(work.path, 'out-2')
    await expect(mergeBundles({ dirs: [second, again], runsDir: other })).rejects.toThrow(
      /refused: 2 trial\(s\) are in both .* and .*run 0190f5a0-0000-7000-8000-000000000009\): task "task-1" trial 0 \(benchmark "toy"\), task "task-1" trial 1/,
    )
    expect(existsSync(other)).toBe(false)
  })
})

describe('mergeBundles refuses, naming the offender, and writes nothing', () => {
  it('a missing shard', async () => {
    const dirs = [await shard(1, 3, ['task-0']), await shard(3, 3, ['task-2'])]
    expect(await refusal(dirs)).toContain('refused: shard 2/3 is missing')
  })

  it('a shard given twice: the same bundle, or two bundles of one index', async () => {
    const one = await shard(1, 2, ['task-0'])
    const two = await shard(2, 2, ['task-1'])
    expect(await refusal([one, two, one])).toMatch(
      new RegExp(
        `refused: ${one} \\(shard 1/2, run ${shardRunId(1)}\\) is given twice: give each shard once$`,
        'm',
      ),
    )
    const again = await shard(2, 2, ['task-2'], { runId: shardRunId(5) })
    expect(await refusal([one, two, again])).toContain(`refused: shard 2/2 is given twice: ${two}`)
  })

  it('shards of different config hash, SDK version, -t filter or dataset', async () => {
    const one = await shard(1, 2, ['task-0'])
    const cases: [Partial<RunMetadata>, RegExp][] = [
      [
        { configHash: 'e'.repeat(64) },
        /has configHash "e{64}" but .* has "d{64}": it ran a different config/,
      ],
      [{ sdkVersion: '9.9.9' }, /has sdkVersion "9.9.9" but .* has "0.1.0"/],
      [{ testNamePattern: 'task-1' }, /has testNamePattern "task-1" but .* has "\(none\)"/],
    ]
    for (const [index, [metadata, message]] of cases.entries()) {
      const two = await writeShard(work.path, join(work.path, `other-${index}`), {
        shard: { index: 2, count: 2 },
        tasks: ['task-1'],
        metadata,
      })
      const text = await refusal([one, two])
      expect(text).toMatch(message)
      expect(text).toContain(`${two} (shard 2/2, run ${shardRunId(2)})`)
    }
    const changed = { id: 'toy', version: '1.0.0', datasetChecksum: 'f'.repeat(64) }
    const two = await writeShard(work.path, join(work.path, 'dataset'), {
      shard: { index: 2, count: 2 },
      tasks: ['task-1'],
      metadata: { benchmark: changed, benchmarks: [changed] },
      trials: (trials) => trials.map((t) => ({ ...t, benchmark: changed })),
    })
    expect(await refusal([one, two])).toMatch(
      /ran benchmark "toy" at version "1.0.0", dataset checksum "f{64}" but .* at version "1.0.0", dataset checksum "a{64}"/,
    )
  })

  it('a trial in two shards: one line per pair of shards, naming the trials (the first 20, and how many more)', async () => {
    const tasks = Array.from({ length: 12 }, (_, i) => `t-${String(i).padStart(2, '0')}`)
    const one = await shard(1, 3, tasks.slice(0, 11))
    const two = await shard(2, 3, tasks.slice(0, 11))
    const three = await shard(3, 3, ['t-11', 't-00'])
    const lines = (await refusal([one, two, three])).split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(
      new RegExp(
        `^refused: 22 trial\\(s\\) are in both ${one} \\(shard 1/3, .*\\) and ${two} \\(shard 2/3, .*\\): task "t-00" trial 0 \\(benchmark "toy"\\), .* and 2 more; the inputs overlap`,
      ),
    )
    expect(lines[1]).toMatch(
      new RegExp(
        `^refused: 2 trial\\(s\\) are in both ${one} .* and ${three} .*: task "t-00" trial 0 \\(benchmark "toy"\\), task "t-00" trial 1 \\(benchmark "toy"\\);`,
      ),
    )
    expect(lines[2]).toBe('Nothing was written.')
  })

  it('an input that is not a valid bundle, and one that is interrupted', async () => {
    const one = await shard(1, 2, ['task-0'])
    const two = await shard(2, 2, ['task-1'])
    await flipByte(join(two, 'scores.json'), 10)
    expect(await refusal([one, two])).toMatch(
      new RegExp(`refused: ${two} is not a valid bundle: .*\\n.*scores.json`),
    )
    expect(await refusal([one, join(work.path, 'nowhere')])).toContain(
      `refused: ${join(work.path, 'nowhere')} is not a valid bundle: no bundle folder`,
    )
    const cut = await writeShard(work.path, join(work.path, 'cut'), {
      shard: { index: 2, count: 2 },
      tasks: ['task-1'],
      metadata: { status: 'interrupted' },
    })
    expect(await refusal([one, cut])).toContain(
      `(shard 2/2, run ${shardRunId(2)}) is interrupted: finish it first`,
    )
  })

  it('shards mixed with a whole run, and shards of different counts', async () => {
    const one = await shard(1, 2, ['task-0'])
    const whole = await writeShard(work.path, shardsDir, {
      shard: null,
      tasks: ['task-1'],
      runId: shardRunId(9),
    })
    expect(await refusal([one, whole])).toContain(`${whole} (complete, run ${shardRunId(9)}) is a whole run`)
    const ofThree = await shard(2, 3, ['task-2'])
    expect(await refusal([one, ofThree])).toContain('the shards were split into different counts')
  })

  it('shards of different run groups (compared only where both carry one)', async () => {
    const dirs = [await shard(1, 2, ['task-0']), await shard(2, 2, ['task-1'])]
    const shards = await readInputs(dirs)
    expect(mergeProblems(shards)).toEqual([])
    const grouped = (group: string | undefined, i: number) => ({
      ...shards[i]!,
      bundle: { ...shards[i]!.bundle, metadata: { ...shards[i]!.bundle.metadata, runGroup: group } },
    })
    expect(mergeProblems([grouped('aaaa', 0), grouped(undefined, 1)])).toEqual([])
    expect(mergeProblems([grouped('aaaa', 0), grouped('bbbb', 1)])).toEqual([
      `${shards[1]!.label} belongs to run group "bbbb" but ${shards[0]!.label} to "aaaa": they are shards of ` +
        'different runs (another run key or CI run)',
    ])
  })
})

describe('mergedReplayCommand', () => {
  it('drops the shard, and names every eval file of a file split once', () => {
    const config = (i: number) =>
      `# root\nnpx agentevalops run configs/x.yaml --shard=${i}/2 --trials 3\n# env\n`
    expect(mergedReplayCommand([config(1), config(2)])).toBe(
      '# root\nnpx agentevalops run configs/x.yaml --trials 3\n# env\n',
    )
    const files = (i: number, list: string) =>
      `# root\nnpx vitest run --project evals ${list} -t 'a b' --shard=${i}/2\n`
    expect(
      mergedReplayCommand([files(1, 'evals/b.eval.ts'), files(2, 'evals/a.eval.ts evals/c.eval.ts')]),
    ).toBe(
      "# root\nnpx vitest run --project evals evals/a.eval.ts evals/b.eval.ts evals/c.eval.ts -t 'a b'\n",
    )
  })
})
