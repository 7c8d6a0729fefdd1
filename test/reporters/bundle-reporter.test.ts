import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { TestCase, TestRunEndReason, Vitest } from 'vitest/node'
import { BundleReporter, type BundleReporterOptions } from '../../reporters/bundle-reporter.ts'
import { mockRunner } from '../../src/agents/index.ts'
import { TOY_FORBIDDEN_TOOLS, TOY_TASK_IDS, toyBenchmark, toyScripts } from '../../src/benchmarks/index.ts'
import { readBundle, validateBundle } from '../../src/bundles/index.ts'
import {
  benchmarkTraceDir,
  PROVIDE_KEY,
  ProvidedRun,
  RunMetadata,
  ScoresFile,
  type TrialRecord,
} from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { matchesExpected } from '../../src/evaluators/index.ts'
import { toolAccess } from '../../src/policy/index.ts'
import { JsonlTraceStore, workerLogFor } from '../../src/stores/index.ts'

const PROJECT = 'evals'
const FAST_TASKS = [TOY_TASK_IDS.exact, TOY_TASK_IDS.wrongAnswer, TOY_TASK_IDS.forbiddenTool]

interface FakeOptions {
  shard?: { index: number; count: number }
  testNamePattern?: RegExp
}

/** The parts of Vitest the reporter touches, recording what it provides and logs. */
function fakeVitest(root: string, options: FakeOptions = {}) {
  const provided: { project: string; key: string; value: ProvidedRun }[] = []
  const logs: string[] = []
  const errors: string[] = []
  const project = (name: string) => ({
    name,
    provide: (key: string, value: unknown) =>
      provided.push({ project: name, key, value: ProvidedRun.parse(value) }),
    config: { include: [`${name}/**/*.ts`], maxConcurrency: 4 },
  })
  const vitest = {
    config: { root, shard: options.shard, testNamePattern: options.testNamePattern },
    projects: [project('unit'), project(PROJECT)],
    logger: {
      log: (message: string) => logs.push(message),
      error: (message: string) => errors.push(message),
    },
    version: '4.1.12-fake',
  }
  return { vitest: vitest as unknown as Vitest, provided, logs, errors }
}

interface CaseOptions {
  project?: string
  moduleId?: string
  fullName?: string
}

function fakeCase(meta: unknown, root: string, options: CaseOptions = {}): TestCase {
  return {
    project: { name: options.project ?? PROJECT },
    meta: () => (meta === undefined ? {} : { agentevalops: meta }),
    module: { moduleId: options.moduleId ?? join(root, 'evals', 'toy.eval.ts') },
    fullName: options.fullName ?? 'toy > some task #0',
  } as unknown as TestCase
}

/**
 * Real trials of toy tasks, as an eval case makes them: events and record in the worker's log in the staging dir
 * (or, `layout: 'files'`, a trace file per trial as older SDKs staged them), the record's tracePath rewritten
 * relative to the staging dir, and the record cloned as plain JSON.
 */
async function makeRecords(
  run: ProvidedRun,
  taskIds: readonly string[] = FAST_TASKS,
  benchmarkId?: string,
  layout: 'log' | 'files' = 'log',
): Promise<TrialRecord[]> {
  const bench = toyBenchmark()
  const [tasks, toyInfo] = await Promise.all([bench.listTasks({ id: [...taskIds] }), bench.info()])
  const info = benchmarkId === undefined ? toyInfo : { ...toyInfo, id: benchmarkId }
  const traceRoot = benchmarkTraceDir(run.stagingDir, info.id)
  const log = workerLogFor(run.stagingDir)
  const store = layout === 'log' ? log.traceStore(info.id) : new JsonlTraceStore(traceRoot)
  const runner = mockRunner({ scripts: toyScripts })
  return Promise.all(
    tasks.map(async (task) => {
      const { record } = await runTrial({
        runId: run.runId,
        benchmark: info,
        task,
        trial: 0,
        runner,
        evaluators: [matchesExpected()],
        policy: [toolAccess({ deny: TOY_FORBIDDEN_TOOLS })],
        traceStore: store,
      })
      const handed = { ...record, tracePath: relative(run.stagingDir, join(traceRoot, record.tracePath)) }
      if (layout === 'log') await log.appendRecord(handed)
      return JSON.parse(JSON.stringify(handed)) as TrialRecord
    }),
  )
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8')) as unknown
}

let root: string
let savedExitCode: typeof process.exitCode

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentevalops-reporter-'))
  savedExitCode = process.exitCode
})

afterEach(async () => {
  process.exitCode = savedExitCode
  await rm(root, { recursive: true, force: true })
})

/** A reporter wired to a fake Vitest; `start` opens a run and returns what it provided to the eval project. */
function setup(
  options: FakeOptions &
    Partial<
      Pick<BundleReporterOptions, 'runsDir' | 'labels' | 'runId' | 'configHash' | 'replay' | 'shard'>
    > = {},
) {
  const fake = fakeVitest(root, options)
  const reporter = new BundleReporter({
    project: PROJECT,
    runsDir: options.runsDir ?? 'runs',
    labels: options.labels ?? {},
    runId: options.runId,
    configHash: options.configHash,
    replay: options.replay,
    shard: options.shard,
  })
  reporter.onInit(fake.vitest)
  const start = async (): Promise<ProvidedRun> => {
    const before = fake.provided.length
    await reporter.onTestRunStart()
    expect(fake.provided.slice(before)).toEqual([
      { project: PROJECT, key: PROVIDE_KEY, value: expect.any(Object) as unknown },
    ])
    return fake.provided.at(-1)!.value
  }
  const end = (reason: TestRunEndReason = 'passed') => reporter.onTestRunEnd([], [], reason)
  const hand = (records: readonly unknown[], options: CaseOptions = {}) => {
    for (const r of records) reporter.onTestCaseResult(fakeCase(r, root, options))
  }
  return { ...fake, reporter, start, end, hand }
}

async function bundleOf(run: ProvidedRun) {
  const dir = join(root, 'runs', run.runId)
  return {
    dir,
    metadata: RunMetadata.parse(await readJson(join(dir, 'metadata.json'))),
    scores: ScoresFile.parse(await readJson(join(dir, 'scores.json'))),
    replay: await readFile(join(dir, 'replay_command.txt'), 'utf8'),
  }
}

describe('BundleReporter', () => {
  it('takes each trial’s trace from the worker log, and from a trace file of an older SDK beside it', async () => {
    const { start, end, hand, errors } = setup()
    const run = await start()
    const logged = await makeRecords(run, ['arith-add', 'wrong-answer'])
    const filed = await makeRecords(run, ['forbidden-tool'], undefined, 'files')
    expect(existsSync(join(run.stagingDir, logged[0]!.tracePath))).toBe(false)
    expect(existsSync(join(run.stagingDir, filed[0]!.tracePath))).toBe(true)
    hand([...logged, ...filed])
    await end()
    const bundle = await bundleOf(run)
    expect(await validateBundle(bundle.dir)).toEqual([])
    const events = (await readFile(join(bundle.dir, 'traces.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { taskId: string; step: number })
    // In bundle order: trial by trial, sorted by task, steps ascending.
    const order = events.map((e) => e.taskId).filter((id, i, all) => all[i - 1] !== id)
    expect(order).toEqual(['arith-add', 'forbidden-tool', 'wrong-answer'])
    for (const t of [...logged, ...filed])
      expect(events.filter((e) => e.taskId === t.taskId)).toHaveLength(t.eventCount)
    expect(errors).toEqual([])
  })

  it('writes a valid bundle of the eval cases and removes the staging folder', async () => {
    const { start, end, hand, logs, errors } = setup({ labels: { team: 'qa' } })
    const run = await start()
    expect(run.stagingDir).toBe(join(root, 'runs', '.staging', run.runId))
    expect(existsSync(run.stagingDir)).toBe(true)
    const records = await makeRecords(run)
    hand(records)
    await end()

    const bundle = await bundleOf(run)
    expect(await validateBundle(bundle.dir)).toEqual([])
    expect(bundle.metadata).toMatchObject({
      runId: run.runId,
      status: 'complete',
      labels: { team: 'qa' },
      trialCount: 3,
      vitestProject: PROJECT,
      vitest: '4.1.12-fake',
      shard: null,
      testNamePattern: null,
      git: { sha: null, dirty: null },
      target: { name: 'mock-scripted', kind: 'mock' },
      benchmark: { id: 'toy' },
    })
    // Sorted by benchmark, task and trial whatever the order the cases finished in.
    expect(bundle.scores.trials.map((t) => [t.taskId, t.outcome])).toEqual([
      ['arith-add', 'passed'],
      ['forbidden-tool', 'policy_violation'],
      ['wrong-answer', 'failed'],
    ])
    expect(bundle.scores.summary).toMatchObject({ n: 3, passed: 1 })
    expect(bundle.replay).toBe(
      '# from the Vitest root of the project\nnpx vitest run --project evals evals/toy.eval.ts\n',
    )
    expect(existsSync(run.stagingDir)).toBe(false)
    expect(errors).toEqual([])
    expect(logs).toHaveLength(1)
    expect(logs[0]!.split('\n').at(-1)).toMatch(
      new RegExp(`^agentevalops: 1/3 trials passed \\(33\\.3%\\) · bundle .*${run.runId}$`),
    )
  })

  it('writes the trials of two benchmarks with the same task ids, each with its own trace', async () => {
    const { start, end, hand, logs, errors } = setup()
    const run = await start()
    const [toy, again] = await Promise.all([makeRecords(run), makeRecords(run, FAST_TASKS, 'toy@again')])
    hand([...again, ...toy].reverse())
    await end()

    const bundle = await bundleOf(run)
    expect(await validateBundle(bundle.dir)).toEqual([])
    expect(bundle.metadata.benchmarks.map((b) => b.id)).toEqual(['toy', 'toy@again'])
    expect(bundle.scores.trials.map((t) => [t.benchmark.id, t.taskId, t.outcome])).toEqual([
      ['toy', 'arith-add', 'passed'],
      ['toy', 'forbidden-tool', 'policy_violation'],
      ['toy', 'wrong-answer', 'failed'],
      ['toy@again', 'arith-add', 'passed'],
      ['toy@again', 'forbidden-tool', 'policy_violation'],
      ['toy@again', 'wrong-answer', 'failed'],
    ])
    const { events } = await readBundle(bundle.dir)
    for (const t of bundle.scores.trials) {
      const own = events.filter((e) => e.benchmark === t.benchmark.id && e.taskId === t.taskId)
      expect(own.map((e) => e.step)).toEqual([...Array(t.eventCount).keys()])
    }
    expect(errors).toEqual([])
    expect(logs[0]).toContain('toy@again/wrong-answer #0')
  })

  it('marks an interrupted run as such', async () => {
    const { start, end, hand } = setup()
    const run = await start()
    hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
    await end('interrupted')
    const bundle = await bundleOf(run)
    expect(bundle.metadata.status).toBe('interrupted')
    expect(await validateBundle(bundle.dir)).toEqual([])
  })

  it('leaves out of an interrupted run the trials it cut short, and says how many', async () => {
    const { start, end, hand, logs } = setup()
    const run = await start()
    // Traces only, as older SDKs staged them: what the cancel left of `cut` is its interrupted record alone.
    const [done, cut] = await makeRecords(
      run,
      [TOY_TASK_IDS.exact, TOY_TASK_IDS.wrongAnswer],
      undefined,
      'files',
    )
    // What a case aborted by the cancel hands over: an interrupted trial (Vitest reports its case as skipped).
    const interrupted: TrialRecord = {
      ...cut!,
      outcome: 'interrupted',
      passed: false,
      scores: [],
      result: { ...cut!.result!, terminatedBy: 'interrupted', success: false },
    }
    hand([done, interrupted])
    await end('interrupted')
    const bundle = await bundleOf(run)
    expect(bundle.metadata).toMatchObject({ status: 'interrupted', trialCount: 1 })
    expect(bundle.scores.trials.map((t) => t.taskId)).toEqual([TOY_TASK_IDS.exact])
    expect(await validateBundle(bundle.dir)).toEqual([])
    expect(logs[0]).toBe('agentevalops: run interrupted: 1 finished trial kept, 1 cut short left out')
  })

  it('keeps interrupted trials of a run that was not interrupted (a trial cancelled on its own)', async () => {
    const { start, end, hand } = setup()
    const run = await start()
    const [record] = await makeRecords(run, [TOY_TASK_IDS.exact])
    hand([{ ...record!, outcome: 'interrupted', passed: false }])
    await end('failed')
    expect((await bundleOf(run)).scores.trials.map((t) => t.outcome)).toEqual(['interrupted'])
  })

  it('uses a fixed run id (in a staging folder of its own), the given config hash and a config-mode replay', async () => {
    const { start, end, hand } = setup({
      runId: 'nightly-7',
      configHash: 'c0ffee',
      replay: { configs: ['configs/x.yaml'], trials: 2, concurrency: null, labels: {}, envRefs: [] },
    })
    const run = await start()
    expect(run.runId).toBe('nightly-7')
    expect(run.stagingDir).toMatch(/[/]runs[/]\.staging[/]nightly-7-[0-9a-f]{8}$/)
    hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
    await end()
    const bundle = await bundleOf(run)
    expect(bundle.dir).toBe(join(root, 'runs', 'nightly-7'))
    expect(bundle.metadata).toMatchObject({ runId: 'nightly-7', configHash: 'c0ffee' })
    expect(bundle.replay.split('\n')[1]).toBe('npx agentevalops run configs/x.yaml --trials 2')
    expect(await validateBundle(bundle.dir)).toEqual([])
  })

  it('takes the shard of a config-mode run from its options (Vitest has none then)', async () => {
    const { start, end, hand } = setup({
      shard: { index: 1, count: 2 },
      replay: { configs: ['configs/x.yaml'], trials: null, concurrency: null, labels: {}, envRefs: [] },
    })
    const run = await start()
    hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
    await end()
    const bundle = await bundleOf(run)
    expect(bundle.metadata).toMatchObject({ status: 'partial-shard', shard: { index: 1, count: 2 } })
    expect(bundle.replay.split('\n')[1]).toBe('npx agentevalops run configs/x.yaml --shard=1/2')
  })

  it('never overwrites the bundle of a fixed run id: a second run fails and keeps its traces', async () => {
    const { start, end, hand, errors } = setup({ runId: 'fixed' })
    const first = await start()
    hand(await makeRecords(first, [TOY_TASK_IDS.exact]))
    await end()
    const before = await readFile(join(root, 'runs', 'fixed', 'scores.json'), 'utf8')
    const second = await start()
    expect(second.stagingDir).not.toBe(first.stagingDir)
    hand(await makeRecords(second, [TOY_TASK_IDS.wrongAnswer]))
    await end()
    expect(process.exitCode).toBe(1)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('a bundle already exists')
    expect(await readFile(join(root, 'runs', 'fixed', 'scores.json'), 'utf8')).toBe(before)
    expect(existsSync(second.stagingDir)).toBe(true)
  })

  it('marks a sharded run partial, and records its shard and name pattern for the replay', async () => {
    const { start, end, hand } = setup({ shard: { index: 2, count: 3 }, testNamePattern: /arith add/ })
    const run = await start()
    hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
    await end()
    const bundle = await bundleOf(run)
    expect(bundle.metadata).toMatchObject({
      status: 'partial-shard',
      shard: { index: 2, count: 3 },
      testNamePattern: 'arith add',
    })
    expect(bundle.replay.split('\n')[1]).toBe(
      "npx vitest run --project evals evals/toy.eval.ts -t 'arith add' --shard=2/3",
    )
    expect(await validateBundle(bundle.dir)).toEqual([])
  })

  it('ignores cases of other projects, cases without a record, and cases outside a run', async () => {
    const { reporter, start, end, hand } = setup()
    const run = await start()
    const [kept, foreign] = await makeRecords(run, [TOY_TASK_IDS.exact, TOY_TASK_IDS.wrongAnswer])
    hand([kept])
    hand([foreign], { project: 'unit', moduleId: join(root, 'test', 'other.test.ts') })
    hand([undefined], { moduleId: join(root, 'evals', 'no-record.eval.ts') })
    await end()
    const bundle = await bundleOf(run)
    expect(bundle.scores.trials.map((t) => t.taskId)).toEqual([TOY_TASK_IDS.exact])
    expect(bundle.replay).not.toContain('other.test.ts')
    expect(bundle.replay).not.toContain('no-record')
    // A late case after the run ended has no run to join: nothing happens, nothing throws.
    expect(() => reporter.onTestCaseResult(fakeCase(kept, root))).not.toThrow()
  })

  it('leaves out an invalid record with an error naming its case, and still writes the rest', async () => {
    const { start, end, hand, errors } = setup()
    const run = await start()
    const [good, other] = await makeRecords(run, [TOY_TASK_IDS.exact, TOY_TASK_IDS.wrongAnswer])
    hand([good])
    hand([{ ...other, outcome: 'bogus' }], { fullName: 'toy > wrong-answer #0' })
    hand([{ taskId: 42 }], { fullName: 'toy > garbage #0' })
    await end()
    expect(errors).toHaveLength(2)
    expect(errors[0]).toMatch(
      /^agentevalops: toy > wrong-answer #0 handed an invalid trial record; it is left out of the bundle: /,
    )
    expect(errors[1]).toMatch(/^agentevalops: toy > garbage #0 handed an invalid trial record/)
    const bundle = await bundleOf(run)
    expect(bundle.scores.trials.map((t) => t.taskId)).toEqual([TOY_TASK_IDS.exact])
    // The left-out trial's trace is not in the bundle either: traces and records stay consistent.
    expect(await validateBundle(bundle.dir)).toEqual([])
    expect(process.exitCode).toBe(savedExitCode)
  })

  it('writes no bundle for a run without records, and removes its staging folder', async () => {
    const { start, end, hand, logs, errors } = setup()
    const run = await start()
    hand([undefined])
    await end()
    expect(existsSync(run.stagingDir)).toBe(false)
    expect(existsSync(join(root, 'runs', run.runId))).toBe(false)
    expect((await readdir(join(root, 'runs'))).filter((name) => name !== '.staging')).toEqual([])
    expect([logs, errors]).toEqual([[], []])
    expect(process.exitCode).toBe(savedExitCode)
  })

  it('gives two consecutive runs their own run ids, staging folders and bundles', async () => {
    const { start, end, hand, logs } = setup()
    const first = await start()
    hand(await makeRecords(first, [TOY_TASK_IDS.exact]))
    await end()
    const second = await start()
    hand(await makeRecords(second, [TOY_TASK_IDS.wrongAnswer, TOY_TASK_IDS.forbiddenTool]))
    await end()

    expect(second.runId).not.toBe(first.runId)
    expect(second.stagingDir).not.toBe(first.stagingDir)
    const [a, b] = [await bundleOf(first), await bundleOf(second)]
    expect([a.metadata.runId, b.metadata.runId]).toEqual([first.runId, second.runId])
    expect(a.scores.trials.map((t) => t.taskId)).toEqual([TOY_TASK_IDS.exact])
    expect(b.scores.trials.map((t) => t.taskId)).toEqual([
      TOY_TASK_IDS.forbiddenTool,
      TOY_TASK_IDS.wrongAnswer,
    ])
    expect(await validateBundle(a.dir)).toEqual([])
    expect(await validateBundle(b.dir)).toEqual([])
    expect(logs).toHaveLength(2)
    // Each run's staging folder goes once its bundle is written, and the emptied .staging folder with it.
    expect((await readdir(join(root, 'runs'))).sort()).toEqual([first.runId, second.runId].sort())
  })

  it('keeps the staging folder, logs where, and fails the process when the bundle cannot be written', async () => {
    const { start, end, hand, logs, errors } = setup()
    const run = await start()
    // A trace file per trial (an older SDK's staging), one of them lost.
    const records = await makeRecords(run, undefined, undefined, 'files')
    const lost = records.find((r) => r.taskId === TOY_TASK_IDS.wrongAnswer)!
    await rm(join(run.stagingDir, lost.tracePath))
    hand(records)
    await end()

    expect(process.exitCode).toBe(1)
    expect(logs).toEqual([])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain(`could not write the bundle of run ${run.runId}`)
    expect(errors[0]).toContain(`Its traces are kept in ${run.stagingDir}.`)
    expect(existsSync(join(root, 'runs', run.runId))).toBe(false)
    // Every trace that was written is still there to recover from.
    for (const r of records.filter((r) => r !== lost))
      expect(existsSync(join(run.stagingDir, r.tracePath))).toBe(true)
    // The writer's own temporary folder is gone too.
    expect((await readdir(join(root, 'runs'))).filter((name) => name !== '.staging')).toEqual([])
  })

  it('resolves runsDir against the Vitest root', async () => {
    const { start, end, hand } = setup({ runsDir: 'out/bundles' })
    const run = await start()
    expect(run.stagingDir).toBe(join(root, 'out', 'bundles', '.staging', run.runId))
    hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
    await end()
    expect(await validateBundle(join(root, 'out', 'bundles', run.runId))).toEqual([])
  })

  it('refuses to start a run before onInit', async () => {
    const reporter = new BundleReporter({ project: PROJECT, runsDir: 'runs', labels: {} })
    await expect(reporter.onTestRunStart()).rejects.toThrow('BundleReporter used before onInit')
    // Ending a run that never started is a no-op.
    await expect(reporter.onTestRunEnd([], [], 'passed')).resolves.toBeUndefined()
  })
})
