import { existsSync } from 'node:fs'
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { TestCase, TestRunEndReason, Vitest } from 'vitest/node'
import { BundleReporter, type BundleReporterOptions } from '../../reporters/bundle-reporter.ts'
import { mockRunner } from '../../src/agents/index.ts'
import { TOY_FORBIDDEN_TOOLS, TOY_TASK_IDS, toyBenchmark, toyScripts } from '../../src/benchmarks/index.ts'
import { readBundle, validateBundle } from '../../src/bundles/index.ts'
import {
  benchmarkTraceDir,
  PROVIDE_KEY,
  workerLogPath,
  ProvidedRun,
  RUN_HEADER_FILE,
  RunHeader,
  RunMetadata,
  ScoresFile,
  type TraceEvent,
  type TrialRecord,
} from '../../src/core/index.ts'
import { toBundleJson } from '../../src/bundles/manifest.ts'
import { makeEvents, makeTrials } from '../bundles/fixtures.ts'
import { runTrial } from '../../src/engine/index.ts'
import { matchesExpected } from '../../src/evaluators/index.ts'
import { toolAccess } from '../../src/policy/index.ts'
import { JsonlTraceStore } from '../../src/stores/index.ts'

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
 * Real trials of toy tasks, as an eval case makes them: traces in the benchmark's folder of the staging dir, the
 * record's tracePath rewritten relative to the staging dir, and the record cloned as plain JSON.
 */
async function makeRecords(
  run: ProvidedRun,
  taskIds: readonly string[] = FAST_TASKS,
  benchmarkId?: string,
): Promise<TrialRecord[]> {
  const bench = toyBenchmark()
  const [tasks, toyInfo] = await Promise.all([bench.listTasks({ id: [...taskIds] }), bench.info()])
  const info = benchmarkId === undefined ? toyInfo : { ...toyInfo, id: benchmarkId }
  const traceRoot = benchmarkTraceDir(run.stagingDir, info.id)
  const store = new JsonlTraceStore(traceRoot)
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
      return JSON.parse(JSON.stringify(handed)) as TrialRecord
    }),
  )
}

/**
 * Appends a trial to the worker log of the run as the worker does: its events (as its trace file holds them, which a
 * test may have removed to lose them), then its record.
 */
async function logTrial(record: unknown): Promise<void> {
  const r = record as { tracePath?: unknown }
  const stagingDir = currentStaging
  if (stagingDir === undefined) throw new Error('logTrial: no run started')
  const events =
    typeof r.tracePath === 'string'
      ? await readFile(join(stagingDir, r.tracePath), 'utf8').catch(() => '')
      : ''
  const lines = events
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `{"event":${line}}\n`)
  const log = workerLogPath(stagingDir, process.pid, 1)
  await mkdir(dirname(log), { recursive: true })
  await appendFile(log, `${lines.join('')}${JSON.stringify({ record })}\n`)
}

/** The staging folder of the run the test started last. */
let currentStaging: string | undefined

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
    const run = fake.provided.at(-1)!.value
    currentStaging = run.stagingDir
    return run
  }
  const end = (reason: TestRunEndReason = 'passed') => reporter.onTestRunEnd([], [], reason)
  const hand = async (records: readonly unknown[], options: CaseOptions = {}) => {
    for (const r of records) {
      // A case of the eval project logged its trial before it ended; a case of another project logs nothing.
      if (r !== undefined && (options.project ?? PROJECT) === PROJECT) await logTrial(r)
      reporter.onTestCaseResult(fakeCase(r, root, options))
    }
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
  it('writes a valid bundle of the eval cases and removes the staging folder', async () => {
    const { start, end, hand, logs, errors } = setup({ labels: { team: 'qa' } })
    const run = await start()
    expect(run.stagingDir).toBe(join(root, 'runs', '.staging', run.runId))
    expect(existsSync(run.stagingDir)).toBe(true)
    const records = await makeRecords(run)
    await hand(records)
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
    await hand([...again, ...toy].reverse())
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
    await hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
    await end('interrupted')
    const bundle = await bundleOf(run)
    expect(bundle.metadata.status).toBe('interrupted')
    expect(await validateBundle(bundle.dir)).toEqual([])
  })

  it('leaves out of an interrupted run the trials it cut short, and says how many', async () => {
    const { start, end, hand, logs } = setup()
    const run = await start()
    const [done, cut] = await makeRecords(run, [TOY_TASK_IDS.exact, TOY_TASK_IDS.wrongAnswer])
    // What a case aborted by the cancel hands over: an interrupted trial (Vitest reports its case as skipped).
    const interrupted: TrialRecord = {
      ...cut!,
      outcome: 'interrupted',
      passed: false,
      scores: [],
      result: { ...cut!.result!, terminatedBy: 'interrupted', success: false },
    }
    await hand([done, interrupted])
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
    await hand([{ ...record!, outcome: 'interrupted', passed: false }])
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
    await hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
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
    // The workers register the trials of this shard's tasks only.
    expect(run.shard).toEqual({ index: 1, count: 2 })
    const header = RunHeader.parse(await readJson(join(run.stagingDir, RUN_HEADER_FILE)))
    expect(header.runGroup).toMatch(/^[0-9a-f]{16}$/)
    await hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
    await end()
    const bundle = await bundleOf(run)
    expect(bundle.metadata).toMatchObject({
      status: 'partial-shard',
      shard: { index: 1, count: 2 },
      runGroup: header.runGroup,
    })
    expect(bundle.replay.split('\n')[1]).toBe('npx agentevalops run configs/x.yaml --shard=1/2')
  })

  it('gives a run that is no shard and has no run key no run group, and no shard to the workers', async () => {
    // Whatever CI runs these tests: no run key of its own.
    for (const name of ['AGENTEVALOPS_RUN_KEY', 'GITHUB_RUN_ID', 'AWS_BATCH_JOB_ID'])
      vi.stubEnv(name, undefined)
    try {
      const { start, end, hand } = setup({})
      const run = await start()
      expect(run.shard).toBeNull()
      await hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
      await end()
      expect((await bundleOf(run)).metadata.runGroup).toBeNull()
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('never overwrites the bundle of a fixed run id: a second run fails and keeps its traces', async () => {
    const { start, end, hand, errors } = setup({ runId: 'fixed' })
    const first = await start()
    await hand(await makeRecords(first, [TOY_TASK_IDS.exact]))
    await end()
    const before = await readFile(join(root, 'runs', 'fixed', 'scores.json'), 'utf8')
    const second = await start()
    expect(second.stagingDir).not.toBe(first.stagingDir)
    await hand(await makeRecords(second, [TOY_TASK_IDS.wrongAnswer]))
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
    await hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
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
    await hand([kept])
    await hand([foreign], { project: 'unit', moduleId: join(root, 'test', 'other.test.ts') })
    await hand([undefined], { moduleId: join(root, 'evals', 'no-record.eval.ts') })
    await end()
    const bundle = await bundleOf(run)
    expect(bundle.scores.trials.map((t) => t.taskId)).toEqual([TOY_TASK_IDS.exact])
    expect(bundle.replay).not.toContain('other.test.ts')
    expect(bundle.replay).not.toContain('no-record')
    // A late case after the run ended has no run to join: nothing happens, nothing throws.
    expect(() => reporter.onTestCaseResult(fakeCase(kept, root))).not.toThrow()
  })

  it('leaves out an invalid record with an error naming its worker log, and still writes the rest', async () => {
    const { start, end, hand, errors } = setup()
    const run = await start()
    const [good, other] = await makeRecords(run, [TOY_TASK_IDS.exact, TOY_TASK_IDS.wrongAnswer])
    await hand([good])
    await hand([{ ...other, outcome: 'bogus' }], { fullName: 'toy > wrong-answer #0' })
    await hand([{ taskId: 42 }], { fullName: 'toy > garbage #0' })
    await end()
    expect(errors).toHaveLength(2)
    // The record is the log's, not the case's (whose meta the reporter no longer reads): the log is named.
    const log = `${process.pid}-1.jsonl`
    expect(errors).toEqual([
      `agentevalops: ${log}: a trial record that is not one (no outcome); it is left out of the bundle.`,
      `agentevalops: ${log}: a trial record that is not one (no benchmark id); it is left out of the bundle.`,
    ])
    const bundle = await bundleOf(run)
    expect(bundle.scores.trials.map((t) => t.taskId)).toEqual([TOY_TASK_IDS.exact])
    // The left-out trial's trace is not in the bundle either: traces and records stay consistent.
    expect(await validateBundle(bundle.dir)).toEqual([])
    expect(process.exitCode).toBe(savedExitCode)
  })

  it('writes no bundle for a run without records, and removes its staging folder', async () => {
    const { start, end, hand, logs, errors } = setup()
    const run = await start()
    await hand([undefined])
    await end()
    expect(existsSync(run.stagingDir)).toBe(false)
    expect(existsSync(join(root, 'runs', run.runId))).toBe(false)
    expect((await readdir(join(root, 'runs'))).filter((name) => name !== '.staging')).toEqual([])
    expect([logs, errors]).toEqual([[], []])
    expect(process.exitCode).toBe(savedExitCode)
  })

  it('writes a valid empty bundle for a shard that drew no task, so the merge finds every shard', async () => {
    const { start, end, hand, errors } = setup({ shard: { index: 3, count: 4 } })
    const run = await start()
    await hand([undefined])
    await end()
    expect(errors).toEqual([])
    const bundle = await bundleOf(run)
    expect(bundle.metadata).toMatchObject({
      status: 'partial-shard',
      shard: { index: 3, count: 4 },
      trialCount: 0,
    })
    expect(bundle.scores.trials).toEqual([])
    expect(await validateBundle(bundle.dir)).toEqual([])
    expect(existsSync(run.stagingDir)).toBe(false)
  })

  it('gives two consecutive runs their own run ids, staging folders and bundles', async () => {
    const { start, end, hand, logs } = setup()
    const first = await start()
    await hand(await makeRecords(first, [TOY_TASK_IDS.exact]))
    await end()
    const second = await start()
    await hand(await makeRecords(second, [TOY_TASK_IDS.wrongAnswer, TOY_TASK_IDS.forbiddenTool]))
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
    const records = await makeRecords(run)
    const lost = records.find((r) => r.taskId === TOY_TASK_IDS.wrongAnswer)!
    await rm(join(run.stagingDir, lost.tracePath))
    await hand(records)
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
    await hand(await makeRecords(run, [TOY_TASK_IDS.exact]))
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

/**
 * What the reporter holds, counted structurally: the distinct objects reachable from it through plain objects,
 * arrays, maps, sets and the reporter's own classes (file handles, buffers and promises are the OS's and V8's), and
 * whether any of them is a trial record or a trace event.
 */
function heldState(root: unknown): { objects: number; records: number; events: number } {
  const seen = new Set<object>()
  const held = { objects: 0, records: 0, events: 0 }
  const ours = new Set(['BundleReporter', 'RunFold', 'Object', 'Array', 'Map', 'Set'])
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return
    seen.add(value)
    if (!ours.has((value.constructor as { name?: string } | undefined)?.name ?? 'Object')) return
    held.objects++
    if ('verdicts' in value && 'tracePath' in value) held.records++
    if ('spanId' in value && 'step' in value) held.events++
    const children =
      value instanceof Map
        ? [...value.keys(), ...value.values()]
        : value instanceof Set
          ? [...value]
          : Object.values(value)
    for (const child of children) visit(child)
  }
  visit(root)
  return held
}

describe('BundleReporter folding a run as it goes', () => {
  /** `count` fixture trials of the run, each with its events, appended to a worker log as the worker does. */
  async function logFixtureTrials(run: ProvidedRun, from: number, count: number) {
    const tasks = Array.from({ length: count }, (_, i) => `task-${String(from + i).padStart(4, '0')}`)
    const trials = makeTrials({ runId: run.runId, tasks, trials: 1 })
    const log = workerLogPath(run.stagingDir, process.pid, 7)
    await mkdir(dirname(log), { recursive: true })
    let text = ''
    const events: TraceEvent[] = []
    for (const trial of trials) {
      for (const event of makeEvents(trial)) {
        text += `${JSON.stringify({ event })}\n`
        events.push(event)
      }
      text += `${JSON.stringify({ record: trial })}\n`
    }
    await appendFile(log, text)
    return { trials, events }
  }

  it('holds no trial record or event once a trial is folded, and a bounded few objects per trial', async () => {
    const { reporter, start, end } = setup()
    const run = await start()
    const counts: number[] = []
    for (const from of [0, 100, 200]) {
      const { trials } = await logFixtureTrials(run, from, 100)
      for (const trial of trials) reporter.onTestCaseResult(fakeCase(trial, root))
      await reporter.caughtUp()
      const held = heldState(reporter)
      expect(held.records).toBe(0)
      expect(held.events).toBe(0)
      counts.push(held.objects)
    }
    // A record of these trials is some 30 objects; what stays of a folded trial is its slim form and two ranges.
    const perTrial = (counts[2]! - counts[0]!) / 200
    expect(perTrial).toBeLessThanOrEqual(8)
    await end()
    const bundle = await bundleOf(run)
    expect(bundle.scores.trials).toHaveLength(300)
    expect(await validateBundle(bundle.dir)).toEqual([])
  })

  it("has every finished trial's events on disk in the staging folder before the run ends", async () => {
    const { reporter, start, end } = setup()
    const run = await start()
    const { trials, events } = await logFixtureTrials(run, 0, 40)
    // Events of a trial still running: not folded until its record comes.
    const [running] = makeTrials({ runId: run.runId, tasks: ['task-running'], trials: 1 })
    const log = workerLogPath(run.stagingDir, process.pid, 7)
    await appendFile(log, `${JSON.stringify({ event: makeEvents(running!)[0] })}\n`)
    // Cases end in any order; one catch-up per case, coalesced.
    for (const trial of [...trials].reverse()) reporter.onTestCaseResult(fakeCase(trial, root))
    await reporter.caughtUp()

    const folded = await readFile(join(run.stagingDir, 'fold', 'traces.unsorted.jsonl'), 'utf8')
    const lines = folded.split('\n').filter((l) => l !== '')
    expect(lines.sort()).toEqual(events.map((e) => JSON.stringify(e)).sort())
    expect(existsSync(join(root, 'runs', run.runId))).toBe(false)

    await appendFile(log, `${JSON.stringify({ event: makeEvents(running!)[1] })}\n`)
    await end()
    // The bundle's traces are the folded ones in bundle order; the trial that never finished is not in it.
    const bundle = await bundleOf(run)
    const { events: bundled } = await readBundle(bundle.dir)
    expect(bundled.map((e) => JSON.stringify(e))).toEqual(events.map((e) => JSON.stringify(e)))
    expect(bundle.scores.trials.map((t) => t.taskId)).toEqual(trials.map((t) => t.taskId))
    expect(await validateBundle(bundle.dir)).toEqual([])
  })

  it("grows spans.jsonl's trial lines and report.html's rows during the run; a trial folded twice is in them once", async () => {
    const { reporter, start, end } = setup()
    const run = await start()
    const { trials } = await logFixtureTrials(run, 0, 12)
    // The first trial again (a retried case), after the others: the last one folded is the bundle's.
    const again = { ...trials[0]!, warnings: ['folded twice'] }
    const log = workerLogPath(run.stagingDir, process.pid, 7)
    await appendFile(
      log,
      `${makeEvents(again)
        .map((event) => `${JSON.stringify({ event })}\n`)
        .join('')}`,
    )
    await appendFile(log, `${JSON.stringify({ record: again })}\n`)
    for (const trial of trials) reporter.onTestCaseResult(fakeCase(trial, root))
    await reporter.caughtUp()

    const grown = async (file: string) =>
      (await readFile(join(run.stagingDir, 'fold', file), 'utf8')).split('\n').filter((l) => l !== '')
    // Each fold of a trial added its part, before the run ended and with no bundle yet.
    expect(await grown('spans.jsonl')).toHaveLength(13)
    expect(await grown('report-rows.jsonl')).toHaveLength(13)
    expect(existsSync(join(root, 'runs', run.runId))).toBe(false)

    await end()
    const bundle = await bundleOf(run)
    const spans = (await readFile(join(bundle.dir, 'spans.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
    // A line per bundled trial, then the run's own line with the eval.run root.
    expect(spans).toHaveLength(13)
    const names = (line: string) =>
      (JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] }).resourceSpans
        .flatMap((r) => r.scopeSpans)
        .flatMap((s) => s.spans)
        .map((sp) => sp.name)
    expect(names(spans.at(-1)!)).toContain('eval.run')
    expect(spans.slice(0, -1).filter((l) => names(l).includes('eval.task'))).toHaveLength(12)
    const html = await readFile(join(bundle.dir, 'report.html'), 'utf8')
    const rows = [
      ...html.matchAll(/<script type="application\/json" class="rows">([\s\S]*?)<\/script>/g),
    ].flatMap((m) => JSON.parse(m[1]!) as unknown[])
    expect(rows).toHaveLength(12)
    expect(await validateBundle(bundle.dir)).toEqual([])
  })

  it('writes the scores.json writeBundle writes for the same trials', async () => {
    const { reporter, start, end } = setup()
    const run = await start()
    const { trials } = await logFixtureTrials(run, 0, 6)
    for (const trial of trials) reporter.onTestCaseResult(fakeCase(trial, root))
    await end()
    const bundle = await bundleOf(run)
    const text = await readFile(join(bundle.dir, 'scores.json'), 'utf8')
    const scores = ScoresFile.parse(JSON.parse(text))
    const whole = {
      schemaVersion: scores.schemaVersion,
      trials: trials.map(({ runId: _r, timing: _t, ...t }) => t),
      summary: scores.summary,
    }
    expect(text).toBe(toBundleJson(ScoresFile.parse(whole)))
  })
})
