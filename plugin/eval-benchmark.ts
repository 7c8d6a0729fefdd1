import { mkdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { describe, expect, inject, it, type ExpectStatic } from 'vitest'
import {
  AgentEvalOpsError,
  BenchmarkInfo,
  GATE_META_KEY,
  TRIAL_CASE_META_KEY,
  TRIAL_ID_META_KEY,
  type TrialCaseId,
  assertTaskSpecs,
  assertUniqueTaskIds,
  benchmarkTraceDir,
  trialArtifactsDir,
  recordingsStagingDir,
  redactorFromEnv,
  trialCaseSummary,
  type Redactor,
  safeFileStem,
  taskInShard,
  type AgentResult,
  type AgentRunner,
  type BenchmarkAdapter,
  type Evaluator,
  type PolicyChecker,
  type ResourceLimits,
  type TaskSpec,
  type TraceEvent,
  type TrialRecord,
} from '../src/core/index.ts'
import {
  benchmarkKeys,
  folderArtifacts,
  runTrial,
  trialLimits,
  type TrialKeys,
  type OwnKeyInput,
} from '../src/engine/index.ts'
import {
  RECORDINGS_FILE_ENV,
  RecordingSession,
  isCi,
  recordModeFromEnv,
  type RecordingEntry,
} from '../src/recording/index.ts'
import { workerLogFor } from '../src/stores/worker-log.ts'
import { TRIAL_ANNOTATION_TYPE, explainTrial, isHarnessFailure, trialAnnotation, type Gate } from './gate.ts'
import { FinishedTrials } from './finished-trials.ts'
import { baselineGateFor, registerBaselineGate } from './baseline-gate.ts'
import { announceRunAgain, carryOver, reuseFor } from './resume.ts'
import {
  ASSERT_EVALUATOR_ID,
  runAssertions,
  withAssertScore,
  withoutAssertScore,
  type AssertionRun,
} from './assertions.ts'
import { currentRun, providedRun } from './provided-run.ts'
import type { CompareOptions } from '../src/scorers/index.ts'
import { ANNOTATE_PROVIDE_KEY } from './vite-plugin.ts'

// One session per recordings folder and worker: trials of a task share its cassette file.
const recordingSessions = new Map<string, RecordingSession>()

function recordingsFor(dir: string): RecordingSession {
  let session = recordingSessions.get(dir)
  if (!session) {
    const sourceFile = process.env[RECORDINGS_FILE_ENV] || undefined
    session = new RecordingSession({ dir, mode: recordModeFromEnv(), ci: isCi(), sourceFile })
    recordingSessions.set(dir, session)
  }
  return session
}

/**
 * The exchanges a trial was answered with go to the run's staging folder, where the bundle reporter gathers them
 * into the bundle's recordings.jsonl: a bundle carries what its trials actually saw.
 */
async function keepRecordingsUsed(
  stagingDir: string,
  benchmarkId: string,
  taskId: string,
  trial: number,
  used: readonly RecordingEntry[],
  redactor: Redactor,
): Promise<void> {
  if (used.length === 0) return
  const path = join(
    recordingsStagingDir(stagingDir),
    `${safeFileStem(`${benchmarkId}/${taskId}`)}.t${trial}.jsonl`,
  )
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, used.map((e) => `${JSON.stringify(redactor.json(e))}\n`).join(''))
}

/** A trial that failed its case: Vitest reports the message, which names the trace steps at fault. */
class TrialFailure extends Error {
  override name = 'TrialFailure'
}

/**
 * Marks the trial cases and says which trial each is, so that a reporter knows how many trials a file holds once it
 * is collected, and which ones the bundle must hold.
 */
function trialCase(id: TrialCaseId) {
  return { meta: { [TRIAL_CASE_META_KEY]: true, [TRIAL_ID_META_KEY]: id } } as const
}

/** What a per-trial assertion callback sees. */
export interface FinishedTrial {
  task: TaskSpec
  record: TrialRecord
  result: AgentResult | null
  events: readonly TraceEvent[]
}

export interface EvalBenchmarkOptions {
  benchmark: BenchmarkAdapter
  runner: AgentRunner
  evaluators?: Evaluator[]
  policy?: PolicyChecker[]
  limits?: ResourceLimits | ((task: TaskSpec) => ResourceLimits)
  /** Trials per task (each is its own Vitest case). */
  trials?: number
  gate?: Gate
  /**
   * Extra assertions per trial, e.g. trace matchers. May be async (for `await expect(trial).toSatisfyJudge(…)`);
   * every async matcher in it must be awaited, or Vitest fails the case for the assertion it never saw end.
   */
  assert?: (trial: FinishedTrial, expect: ExpectStatic) => void | Promise<void>
  /**
   * Where this benchmark's model-call recordings live (see docs/recordings.md); default
   * `__recordings__/<eval file name>/` beside the eval file, as Vitest keeps `__snapshots__`.
   */
  recordingsDir?: string
  /**
   * Compare with this bundle folder, or `latest` (the newest complete bundle of this benchmark in the runs
   * folder): a last gate case fails on NO_GO. Overrides the run-level `--baseline`. See docs/statistics.md.
   */
  baseline?: string
  /** Settings of the baseline comparison (alpha, maxDrop, minPairs, failOnBroken, force). */
  compare?: CompareOptions
}

/**
 * Registers a benchmark as `describe(benchmark.id)` with one `it.concurrent` per task × trial, each running the
 * engine once. With a `minPassRate` gate, a last sequential case checks the aggregate: Vitest runs it after the
 * concurrent group before it has finished.
 */
export function evalBenchmark(options: EvalBenchmarkOptions): void {
  const { benchmark, runner, trials = 1, gate = 'each' } = options
  if (!Number.isInteger(trials) || trials < 1) {
    throw new TypeError(`evalBenchmark(${benchmark.id}): trials must be a whole number ≥ 1, got ${trials}`)
  }
  if (typeof gate === 'object' && !(gate.minPassRate >= 0 && gate.minPassRate <= 1)) {
    throw new TypeError(`evalBenchmark(${benchmark.id}): gate.minPassRate must be between 0 and 1`)
  }
  if (options.assert && options.evaluators?.some((e) => e.id === ASSERT_EVALUATOR_ID)) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `evalBenchmark(${benchmark.id}): an evaluator has the id "${ASSERT_EVALUATOR_ID}", which the score of the assert callback uses.`,
      { hint: 'Give that evaluator another id.' },
    )
  }

  describe(benchmark.id, async () => {
    const [tasks, listed] = await Promise.all([benchmark.listTasks(), benchmark.info()])
    // Once, before any case registers: a task that is not plain JSON would fail far from its definition, and two
    // tasks of one id would run as two cases and merge into one trial.
    assertTaskSpecs(benchmark.id, tasks)
    const info = benchmarkInfo(benchmark.id, listed)
    assertUniqueTaskIds(tasks, info.id)
    const provided = providedRun()
    const baseline = baselineGateFor(options.baseline, options.compare, provided)
    // A shard runs every trial of its tasks and nothing else; which tasks is a hash of the ids, the same everywhere.
    const shard = provided?.shard ?? null
    const mine = shard === null ? tasks : tasks.filter((task) => taskInShard(info.id, task.id, shard))
    if (mine.length === 0) {
      // Vitest fails a suite without tests; a shard that draws none of this benchmark's tasks is no failure.
      it.skip(`shard ${shard?.index}/${shard?.count} holds no task of ${info.id}`, () => undefined)
      return
    }
    // The gates after the trials read a few facts of each, not whole records (see FinishedTrials).
    const finished = new FinishedTrials({ compared: baseline !== undefined })
    // The keys' parts every trial of the benchmark shares are hashed once, at its first trial.
    let keyer: ((own: OwnKeyInput) => TrialKeys) | undefined
    // Only when the plugin found a reporter that reads annotations: each costs a round trip to the main process.
    const annotating = inject(ANNOTATE_PROVIDE_KEY) === true
    // Reading the environment costs more than a trial's own work in a fast benchmark: once per file, at its first
    // trial (after its beforeAll hooks, which may set variables).
    let built: Redactor | undefined
    const redactor = (): Redactor => (built ??= redactorFromEnv(process.env))

    for (const task of mine) {
      for (let trial = 0; trial < trials; trial++) {
        const id = { benchmark: info.id, taskId: task.id, trial }
        it.concurrent(`${task.id} #${trial}`, trialCase(id), async (context) => {
          const { task: testCase, signal } = context
          const run = currentRun()
          const traceRoot = benchmarkTraceDir(run.stagingDir, info.id)
          const file = testCase.file.filepath
          const recordings = recordingsFor(
            options.recordingsDir ?? join(dirname(file), '__recordings__', basename(file)),
          )
          const modelCalls = recordings.gateFor({ benchmark: info.id, taskId: task.id, trial })
          const runnerInfo = runner.runnerInfo()
          // Every trial of this worker writes its events and record to one log (see src/core/staging.ts).
          const log = workerLogFor(run.stagingDir)
          // On disk before this trial's first event, which follows it in the log: not awaited here.
          log.stageBenchmark({ benchmark: info, runner: runnerInfo }).catch(() => undefined)
          const limits = trialLimits(
            typeof options.limits === 'function' ? options.limits(task) : options.limits,
            benchmark.taskLimits?.(task),
          )
          keyer ??= benchmarkKeys({
            benchmark: info,
            runner: runnerInfo,
            evaluators: options.evaluators,
            policy: options.policy,
            grader: benchmark.grade ? info.version : undefined,
          })
          const keys = keyer({ task, trial, limits })
          const artifactsDir = trialArtifactsDir(info.id, task.id, trial)
          const { reuse, runAgain } = await reuseFor(
            run.resume,
            { benchmarkId: info.id, taskId: task.id, trial, keys },
            !(benchmark.prepare && benchmark.grade),
          )
          // Said before the trial runs again: a changed config can make a long resume cost as much as a new run.
          const notReused = runAgain && announceRunAgain(info.id, `${task.id} #${trial}`, runAgain)
          const { record, events, result } = await runTrial({
            runId: run.runId,
            benchmark: info,
            task,
            trial,
            runner,
            prepare: benchmark.prepare?.bind(benchmark),
            grade: benchmark.grade?.bind(benchmark),
            gradeTimeoutSeconds: benchmark.gradeTimeoutSeconds,
            artifacts: folderArtifacts(join(run.stagingDir, artifactsDir), artifactsDir),
            teardown: benchmark.teardown?.bind(benchmark),
            evaluators: options.evaluators,
            policy: options.policy,
            limits,
            traceStore: log.traceStore(info.id),
            signal,
            modelCalls,
            reuse,
            keys,
            redactor: redactor(),
          })
          const used = reuse
            ? await carryOver(run.stagingDir, reuse, record.result, modelCalls.used)
            : modelCalls.used
          await keepRecordingsUsed(run.stagingDir, info.id, task.id, trial, used, redactor())
          const engineRecord: TrialRecord = {
            ...record,
            // In the record too, beside the console line: which trials ran again, and why.
            ...(notReused ? { warnings: [...record.warnings, notReused] } : {}),
            tracePath: relative(run.stagingDir, join(traceRoot, record.tracePath)),
          }
          // Assertions run before the record is staged, since their verdict is part of it: the bundle, the gate and
          // Vitest must agree on every trial. A harness failure fails its case before any assertion.
          let assertions: AssertionRun | undefined
          if (options.assert && !isHarnessFailure(engineRecord)) {
            const assert = options.assert
            // The case's own expect is built on first access, at a cost that shows over thousands of trials.
            assertions = await runAssertions(
              () => assert({ task, record: engineRecord, result, events }, context.expect),
              testCase,
            )
          }
          const base = withoutAssertScore(engineRecord)
          const handed = assertions ? withAssertScore(base, assertions, redactor()) : base
          // On disk, with the trial's events before it, before it is handed over: a run killed from here on still
          // has this trial to recover.
          await log.appendRecord(handed)
          // A summary, not the record (in the log already): meta crosses to the main process with every case.
          testCase.meta.agentevalops = trialCaseSummary(handed)
          finished.add(handed)
          // Before any failure is thrown: a failed case keeps its annotation too. One, and only for a reporter that
          // reads it (JUnit properties, the HTML reporter), since each is a round trip to the main process.
          if (annotating) await context.annotate(trialAnnotation(handed), TRIAL_ANNOTATION_TYPE)

          if (isHarnessFailure(handed)) throw new TrialFailure(`harness failure\n${explainTrial(handed)}`)
          // Vitest reports the assertion's own message, which names the steps at fault; an `expect.soft` failure
          // has failed the case already.
          if (assertions?.thrown) throw assertions.thrown.error
          if (gate === 'each' && !base.passed)
            throw new TrialFailure(`trial did not pass\n${explainTrial(handed)}`)
        })
      }
    }

    if (typeof gate === 'object') {
      const gateMeta = {
        meta: { [GATE_META_KEY]: { benchmark: info.id, minPassRate: gate.minPassRate } },
      } as const
      // A shard's pass rate is that of the tasks it drew, not the run's: the merge judges the whole against the
      // gate the bundle's metadata lists (see docs/scale-out.md), so a shard neither fails nor passes on it.
      if (shard !== null) {
        it.skip(
          `gate: pass rate ≥ ${gate.minPassRate} (judged on the merged run, not on shard ${shard.index}/${shard.count})`,
          gateMeta,
          () => undefined,
        )
      } else {
        it(`gate: pass rate ≥ ${gate.minPassRate}`, gateMeta, () => {
          if (finished.count === 0) return
          const rate = finished.passRate
          expect(
            rate,
            `${benchmark.id}: pass rate ${rate.toFixed(3)} over ${finished.count} trials is below ${gate.minPassRate}\n${finished.failures()}`,
          ).toBeGreaterThanOrEqual(gate.minPassRate)
        })
      }
    }
    if (baseline) registerBaselineGate(baseline, () => info, finished.compared ?? [], currentRun)
  })
}

/** The benchmark's info() as the records carry it, checked once: each trial's record holds it as it is. */
function benchmarkInfo(benchmarkId: string, listed: unknown): BenchmarkInfo {
  const parsed = BenchmarkInfo.safeParse(listed)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `benchmark ${JSON.stringify(benchmarkId)}: info() returned an invalid benchmark info (${issue ? `${issue.path.join('.') || '(info)'}: ${issue.message}` : 'invalid'}).`,
    { hint: 'Return { id, version, datasetChecksum } from info(), each a string (id not empty).' },
  )
}
