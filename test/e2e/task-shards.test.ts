// Task-level shards through real `vitest run`s of a throwaway project with ONE eval file: Vitest alone refuses more
// shards than files, and would put every task in one shard. Here `--shard=i/4` splits the tasks (every trial of a
// task together), the engines' 0-based indexes pick the same shards, the shards of one run key share a run group,
// and an index that makes no shard stops the run with the variable's name.
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shardOfTask, type RunMetadata } from '../../src/core/index.ts'
import {
  EVAL_IMPORTS,
  bundleDirs,
  createTempProject,
  readMetadata,
  readScores,
  runVitest,
  tail,
  validateWithCli,
  type TempProject,
  type VitestResult,
} from './helpers.ts'

const TASKS = Array.from({ length: 10 }, (_, i) => `t${String(i).padStart(2, '0')}`)

const EVAL = `${EVAL_IMPORTS}

const ids: string[] = ${JSON.stringify(TASKS)}
const benchmark: BenchmarkAdapter = {
  id: 'shards',
  version: '1',
  listTasks: () => ids.map((id) => defineTask({ id, benchmark: 'shards', prompt: 'Say yes.', expected: 'yes' })),
  info: () => ({ id: 'shards', version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({
  benchmark,
  runner: mockRunner({ scripts: () => ({ steps: [{ kind: 'final_answer', answer: 'yes' }] }) }),
  evaluators: [matchesExpected()],
  trials: 2,
})
`

/** No engine index of the machine running the tests leaks into a run that does not set one. */
const NO_ENGINE = { JOB_COMPLETION_INDEX: '', AWS_BATCH_JOB_ARRAY_INDEX: '', AGENTEVALOPS_SHARD_COUNT: '' }

interface Shard {
  result: VitestResult
  metadata: RunMetadata
  /** `task #trial` of the bundle's scores.json, sorted. */
  trials: string[]
  bundle: string
}

let project: TempProject
let counter = 0

async function run(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ result: VitestResult; runsDir: string }> {
  const runsDir = join(project.runsDir, `run-${counter++}`)
  await mkdir(runsDir)
  const result = await runVitest(['run', '--project', 'evals', ...args], {
    cwd: project.root,
    runsDir,
    env: { ...NO_ENGINE, ...env },
    timeoutMs: 90_000,
  })
  return { result, runsDir }
}

async function shardRun(args: readonly string[], env: Record<string, string>): Promise<Shard> {
  const { result, runsDir } = await run(args, env)
  expect(result.code, tail(result.output)).toBe(0)
  const bundles = await bundleDirs(runsDir)
  expect(bundles, tail(result.output)).toHaveLength(1)
  const bundle = bundles[0]!
  const scores = await readScores(bundle)
  return {
    result,
    metadata: await readMetadata(bundle),
    trials: scores.trials.map((t) => `${t.taskId} #${t.trial}`).sort(),
    bundle,
  }
}

let flagShards: Shard[]
let engineShards: { k8s: Shard; batch: Shard }
let outOfRange: { result: VitestResult; runsDir: string }
/** A shard of 12 that draws none of the ten tasks. */
const EMPTY = Array.from({ length: 12 }, (_, i) => i + 1).find((i) =>
  TASKS.every((t) => shardOfTask('shards', t, 12) !== i),
)!
let empty: Shard

beforeAll(async () => {
  project = await createTempProject({ 'evals/shards.eval.ts': EVAL })
  // The blob reporter beside ours: it must still name its file after the shard.
  flagShards = await Promise.all(
    [1, 2, 3, 4].map((i) =>
      shardRun([`--shard=${i}/4`, '--reporter=default', '--reporter=blob'], {
        AGENTEVALOPS_RUN_KEY: 'run-a',
      }),
    ),
  )
  const [k8s, batch, bad, none] = await Promise.all([
    shardRun([], { JOB_COMPLETION_INDEX: '1', AGENTEVALOPS_SHARD_COUNT: '4', AGENTEVALOPS_RUN_KEY: 'run-b' }),
    shardRun([], {
      AWS_BATCH_JOB_ARRAY_INDEX: '3',
      AGENTEVALOPS_SHARD_COUNT: '4',
      AGENTEVALOPS_RUN_KEY: 'run-b',
    }),
    run([], { JOB_COMPLETION_INDEX: '4', AGENTEVALOPS_SHARD_COUNT: '4' }),
    shardRun([`--shard=${EMPTY}/12`], { AGENTEVALOPS_RUN_KEY: 'run-a' }),
  ])
  empty = none
  engineShards = { k8s, batch }
  outOfRange = bad
}, 240_000)
afterAll(async () => {
  await project?.remove()
})

describe('vitest --shard=i/4 over one eval file', () => {
  it('writes four partial-shard bundles whose trials are disjoint and together are every trial of every task', async () => {
    const seen = new Map<string, number>()
    for (const [i, shard] of flagShards.entries()) {
      expect(shard.metadata).toMatchObject({ status: 'partial-shard', shard: { index: i + 1, count: 4 } })
      expect(shard.trials.length, `shard ${i + 1}`).toBeGreaterThan(0)
      for (const trial of shard.trials) {
        expect(seen.has(trial), `${trial} in shards ${seen.get(trial)} and ${i + 1}`).toBe(false)
        seen.set(trial, i + 1)
      }
      // Only this shard's trials are registered, so validate-bundle holds the bundle to exactly them.
      const registered = (shard.metadata.registeredTrials ?? []).flatMap((r) =>
        r.trials.map((n) => `${r.taskId} #${n}`),
      )
      expect(registered.sort()).toEqual(shard.trials)
      const validation = await validateWithCli(shard.bundle)
      expect(validation.code, validation.stdout + validation.stderr).toBe(0)
    }
    expect([...seen.keys()].sort()).toEqual(TASKS.flatMap((t) => [`${t} #0`, `${t} #1`]))
    // Every trial of a task in the same shard.
    for (const task of TASKS) expect(seen.get(`${task} #0`)).toBe(seen.get(`${task} #1`))
  })

  it('leaves the blob reporter its shard: each shard writes .vitest-reports/blob-<i>-4.json', () => {
    for (const i of [1, 2, 3, 4]) {
      expect(
        existsSync(join(project.root, '.vitest-reports', `blob-${i}-4.json`)),
        `blob of shard ${i}`,
      ).toBe(true)
    }
  })

  it('gives the shards of one run key one run group, and one config hash', () => {
    const groups = new Set(flagShards.map((s) => s.metadata.runGroup))
    expect(groups.size).toBe(1)
    expect([...groups][0]).toMatch(/^[0-9a-f]{16}$/)
    expect(new Set(flagShards.map((s) => s.metadata.configHash)).size).toBe(1)
  })

  it('writes a valid empty partial-shard bundle for a shard that draws no task, so a merge can tell it ran', async () => {
    expect(empty.metadata).toMatchObject({
      status: 'partial-shard',
      shard: { index: EMPTY, count: 12 },
      trialCount: 0,
      configHash: flagShards[0]!.metadata.configHash,
    })
    expect(empty.trials).toEqual([])
    const validation = await validateWithCli(empty.bundle)
    expect(validation.code, validation.stdout + validation.stderr).toBe(0)
  })
})

describe("the engines' shard index", () => {
  it('JOB_COMPLETION_INDEX=1 and AWS_BATCH_JOB_ARRAY_INDEX=3 (of 4) run the shards --shard=2/4 and 4/4 run', () => {
    expect(engineShards.k8s.metadata).toMatchObject({
      status: 'partial-shard',
      shard: { index: 2, count: 4 },
    })
    expect(engineShards.k8s.trials).toEqual(flagShards[1]!.trials)
    expect(engineShards.batch.metadata).toMatchObject({
      status: 'partial-shard',
      shard: { index: 4, count: 4 },
    })
    expect(engineShards.batch.trials).toEqual(flagShards[3]!.trials)
  })

  it('groups the shards of another run key apart from the first', () => {
    expect(engineShards.k8s.metadata.runGroup).toBe(engineShards.batch.metadata.runGroup)
    expect(engineShards.k8s.metadata.runGroup).not.toBe(flagShards[0]!.metadata.runGroup)
  })

  it('stops a run whose index is out of range, naming the variable, before any trial runs', async () => {
    expect(outOfRange.result.code, tail(outOfRange.result.output)).not.toBe(0)
    expect(outOfRange.result.output).toContain(
      'JOB_COMPLETION_INDEX=4 is out of range for 4 shards (AGENTEVALOPS_SHARD_COUNT): the index is 0-based, 0 to 3.',
    )
    expect(await bundleDirs(outOfRange.runsDir)).toEqual([])
  })
})
