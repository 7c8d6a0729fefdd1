import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { basename, join, relative, resolve } from 'node:path'
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import {
  AgentEvalOpsError,
  BaselineComparison,
  BUNDLE_FORMAT_VERSION,
  RunMetadata,
  COMPARISON_META_KEY,
  META_KEY,
  PROVIDE_KEY,
  checksumOf,
  errorMessage,
  newRunId,
  runGroupFor,
  runKeyFromEnv,
  sdkVersion,
  type BenchmarkInfo,
  type PassRateGate,
  type RegisteredTrials,
  type RunSummary,
  type ScoredTrial,
  type SummarySettings,
} from '../src/core/index.ts'
import { differenceFromRegistered, nameTrials, sealBundle } from '../src/bundles/index.ts'
import { passRateGates, registeredTrials, unendedTrials } from './registered-trials.ts'
import { noTrialMatched } from './no-trial-matched.ts'
import { whyNotWritable } from '../src/stores/index.ts'
import { renderMarkdownReport } from '../src/reports/index.ts'
import { terminalText } from '../src/reports/escape-terminal.ts'
import { resolveSummarySettings, type CompareOptions, type SummaryOptions } from '../src/scorers/index.ts'
import { compareWithBaseline } from './baseline.ts'
import { consoleSummary } from './console-summary.ts'
import { derivedRunFiles, timeStage } from './derived-files.ts'
import { appendGithubStepSummary, githubStepSummary, VIEW_URL_ENV } from './github-summary.ts'
import { replayCommand, type ConfigReplay } from './replay-command.ts'
import { gitState, type GitState } from './run-environment.ts'
import { invalidTraces, writeSortedParts, type SortedParts } from './fold-seal.ts'
import { SealTally } from './seal-tally.ts'
import { reportTrial } from './slim-trial.ts'
import { GrowingFiles } from './growing-files.ts'
import { endMergeReports, mergingReports } from './merge-reports.ts'
import { foldBlobCopies } from './blob-copies.ts'
import { RunFold, trialKey } from './run-fold.ts'
import {
  artifactFiles,
  recordingsFile,
  removeStaging,
  unrecoveredStagings,
  writeRunHeader,
} from './staging.ts'
import type {} from './vitest-channel.ts'
import { uploadSealed, uploadTarget } from './upload-sealed.ts'

export interface BundleReporterOptions {
  /** Name of the Vitest project whose cases are eval trials. */
  project: string
  runsDir: string
  labels: Record<string, string>
  /**
   * A fixed run id (a config's run_id) instead of a fresh UUIDv7 per run. An existing bundle of that id is never
   * overwritten: writing that run's bundle fails instead.
   */
  runId?: string | undefined
  /** metadata.configHash, when the run was made from RunConfigs (a hash over their hashes). */
  configHash?: string | undefined
  /** Set for a config-mode run: replay_command.txt then holds an `agentevalops run` command. */
  replay?: ConfigReplay | undefined
  /**
   * The shard of the run (Vitest's --shard, AGENTEVALOPS_SHARD or an engine's index): the workers register the
   * trials of its tasks only, so it splits tasks rather than files (see plugin/task-shard.ts).
   */
  shard?: { index: number; count: number } | undefined
  /** How the statistics are computed (confidence, reducer, error policy, cluster key, bootstrap B and seed). */
  statistics?: SummaryOptions | undefined
  /**
   * Compare the run with this bundle (or `latest`): the comparison lands in scores.json and report.md, and every
   * benchmark gets a gate case that fails on NO_GO.
   */
  baseline?: { spec: string; options?: CompareOptions | undefined } | undefined
  /** Bundle folders whose finished trials are taken over instead of run again (`--resume`). */
  resume?: readonly string[] | undefined
  /** s3://bucket/prefix each sealed bundle is uploaded to (default: AGENTEVALOPS_UPLOAD). */
  upload?: string | undefined
}

interface OpenRun {
  runId: string
  runsDir: string
  stagingDir: string
  startedAt: Date
  /** The trials folded from the workers' logs so far, and the files the bundle's traces and scores come from. */
  fold: RunFold
  /** The spans and report rows its trials add as they fold. */
  growing: GrowingFiles
  /** Comparisons made by benchmarks' baseline gate cases. */
  gateComparisons: BaselineComparison[]
  /** The bundles this run resumes, with their run ids. */
  resume: { dir: string; runId: string }[]
  /** metadata.runGroup, known from the start (the staging header carries it). */
  runGroup: string | null
  files: Set<string>
  /** Asked at the start: the answer does not change during the run, and the end is the busy part. */
  git: Promise<GitState>
}

/**
 * Turns the eval cases of one Vitest run into a result bundle. A fresh run opens at every onTestRunStart (watch
 * reruns too), so each run gets its own bundle. Trials arrive through the workers' logs in the run's staging folder:
 * as cases end, the reporter folds the finished ones (see RunFold), so that the end of the run only seals.
 */
export class BundleReporter implements Reporter {
  private vitest: Vitest | undefined
  private run: OpenRun | undefined
  private readonly settings: SummarySettings
  private readonly upload: string | undefined

  constructor(private readonly options: BundleReporterOptions) {
    // Bad statistics settings stop the run before anything runs, not after an hour of trials.
    this.settings = resolveSummarySettings(options.statistics)
    this.upload = uploadTarget(options.upload)
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
    // Before the merge replays the shards' cases: every shard's copy of a task-sharded eval file must reach it.
    if (mergingReports(vitest)) foldBlobCopies(vitest)
  }

  async onTestRunStart(): Promise<void> {
    const vitest = this.requireVitest()
    // Replayed cases of `vitest --merge-reports` run nothing: the bundle is merged from the shards' at the end.
    if (mergingReports(vitest)) return
    const runId = this.options.runId ?? newRunId()
    const runsDir = resolve(vitest.config.root, this.options.runsDir)
    // A fixed run id repeats across runs (watch reruns, a retry after a crash): its staging folder must not.
    const stagingName =
      this.options.runId === undefined ? runId : `${runId}-${randomBytes(4).toString('hex')}`
    const stagingDir = join(runsDir, '.staging', stagingName)
    // A resume that names no bundle must stop the run before it starts, not run everything again.
    const resume = await resolveResume(this.options.resume ?? [], vitest.config.root)
    await mkdir(stagingDir, { recursive: true }).catch(async (e: unknown) => {
      throw await runsDirFailure(runsDir, e)
    })
    await this.warnAboutUnrecovered(runsDir, stagingName)
    const runGroup = this.runGroup(vitest)
    await writeRunHeader(stagingDir, {
      v: 1,
      runId,
      startedAt: new Date().toISOString(),
      pid: process.pid,
      hostname: hostname(),
      vitestProject: this.options.project,
      labels: this.options.labels,
      // A shard's, so that a recovered shard still matches the others.
      configHash:
        (this.options.shard ?? vitest.config.shard)
          ? this.startConfigHash(vitest)
          : (this.options.configHash ?? null),
      testNamePattern: vitest.config.testNamePattern?.source ?? null,
      shard: this.options.shard ?? vitest.config.shard ?? null,
      runGroup,
      vitest: vitest.version,
      node: process.version,
      sdkVersion: sdkVersion(),
      statistics: this.settings,
      replayCommand: replayCommand({
        root: vitest.config.root,
        project: this.options.project,
        files: [],
        testNamePattern: vitest.config.testNamePattern?.source ?? null,
        shard: this.options.shard ?? vitest.config.shard ?? null,
        env: process.env,
        config: this.options.replay,
      }),
    })
    const startedAt = new Date()
    const growing = await GrowingFiles.open(startedAt)
    this.run = {
      runId,
      runsDir,
      stagingDir,
      startedAt,
      fold: await RunFold.open(stagingDir, runId, growing.parts),
      growing,
      gateComparisons: [],
      resume,
      runGroup,
      files: new Set(),
      git: gitState(vitest.config.root),
    }
    for (const project of vitest.projects) {
      if (project.name === this.options.project) {
        const baseline = this.options.baseline
        project.provide(PROVIDE_KEY, {
          runId,
          stagingDir,
          runsDir,
          baseline: baseline ? { spec: baseline.spec, options: { ...baseline.options } } : null,
          resume,
          shard: this.options.shard ?? null,
        })
      }
    }
  }

  onTestCaseResult(testCase: TestCase): void {
    const run = this.run
    if (!run || testCase.project.name !== this.options.project) return
    const comparison = testCase.meta()[COMPARISON_META_KEY]
    if (comparison !== undefined) {
      const parsed = BaselineComparison.safeParse(comparison)
      if (parsed.success) run.gateComparisons.push(parsed.data)
    }
    // The record itself is in the worker's log, durable before the case ended: fold what the logs gained.
    run.fold.poke()
    if (testCase.meta()[META_KEY] !== undefined) run.files.add(testCase.module.moduleId)
  }

  /**
   * Resolves once every trial the workers have logged so far is folded (as the reporter does by itself as cases
   * end): for a caller that wants the run's data on disk before the run ends.
   */
  async caughtUp(): Promise<void> {
    await this.run?.fold.caughtUp()
  }

  async onTestRunEnd(
    modules: readonly TestModule[],
    _errors: readonly unknown[],
    reason: TestRunEndReason,
  ): Promise<void> {
    const vitest = this.vitest
    if (vitest && mergingReports(vitest)) {
      await endMergeReports({
        vitest,
        project: this.options.project,
        runsDir: resolve(vitest.config.root, this.options.runsDir),
        modules,
        env: process.env,
      })
      return
    }
    const run = this.run
    this.run = undefined
    if (!run) return
    try {
      await this.endRun(run, modules, reason)
    } finally {
      await run.fold.close()
      // The fold's files are copies of what the logs hold: a kept staging folder keeps the logs only.
      await rm(run.fold.dir, { recursive: true, force: true })
    }
  }

  private async endRun(
    run: OpenRun,
    modules: readonly TestModule[],
    reason: TestRunEndReason,
  ): Promise<void> {
    const vitest = this.requireVitest()
    // Every trial that finished is in a log, whether or not Vitest reported its case (a cancel may skip it).
    const caught = await run.fold.caughtUp().then(
      () => undefined,
      (e: unknown) => e ?? new Error('unknown failure'),
    )
    for (const problem of run.fold.problems)
      vitest.logger.error(`agentevalops: ${terminalText(problem)}; it is left out of the bundle.`)
    if (caught !== undefined) {
      vitest.logger.error(
        `agentevalops: could not write the bundle of run ${terminalText(run.runId)} (${terminalText(errorMessage(caught))}). ` +
          `Its traces are kept in ${terminalText(run.stagingDir)}.`,
      )
      process.exitCode = 1
      return
    }
    const index = run.fold.index
    const folded = index.counts()
    let kept = folded.trials
    if (reason === 'interrupted') {
      // Trials the interrupt cut short never finished: their records (with outcome interrupted) would count as
      // failures. The bundle holds the trials that had finished.
      index.dropInterrupted()
      const cut = folded.interrupted
      kept -= cut
      vitest.logger.log(
        `agentevalops: run interrupted: ${kept} finished trial${kept === 1 ? '' : 's'} kept` +
          (cut > 0 ? `, ${cut} cut short left out` : ''),
      )
    }
    const unreported = reason === 'interrupted' ? undefined : this.unreported(run, modules)
    if (unreported) {
      process.exitCode = 1
      vitest.logger.error(
        `agentevalops: ${unreported.trials.reduce((n, t) => n + t.trials.length, 0)} trial(s) never reported back ` +
          `(their worker died: killed, out of memory?) in ${terminalText(unreported.files.join(', '))}: ` +
          `${terminalText(nameTrials(differenceFromRegistered(unreported.trials, []).missing))}. The run is interrupted; ` +
          `the traces they left stay in ${terminalText(relative(process.cwd(), run.stagingDir) || run.stagingDir)}.`,
      )
    }
    // A shard that drew no task still says so with a bundle: the merge of its run checks that every shard is there.
    const emptyShard =
      kept === 0 &&
      reason !== 'interrupted' &&
      !unreported &&
      (this.options.shard ?? vitest.config.shard) != null &&
      !vitest.config.testNamePattern
    if (kept === 0 && !emptyShard) {
      // Nothing finished, but a dead worker's trials left partial traces: `recover` turns them into a bundle.
      if (unreported) return
      await removeStaging(run.stagingDir)
      const unmatched =
        reason === 'interrupted'
          ? undefined
          : noTrialMatched({
              modules,
              project: this.options.project,
              testNamePattern: vitest.config.testNamePattern,
              passWithNoTests: vitest.config.passWithNoTests,
            })
      if (unmatched?.exitCode === 1) {
        vitest.logger.error(unmatched.message)
        process.exitCode = 1
      } else if (unmatched) vitest.logger.log(unmatched.message)
      return
    }
    try {
      const registered = registeredTrials(modules, this.options.project)
      const gates = passRateGates(modules, this.options.project)
      const { dir, trials, summary, metadata } = await this.writeRun(
        run,
        reason,
        { registered, gates },
        unreported,
      )
      // The bundle lacks the traces of trials that never reported: staging keeps them until a resume finishes.
      if (!unreported) await removeStaging(run.stagingDir)
      if (metadata.status !== 'interrupted') await this.removeResumedStagings(run)
      const shown = relative(process.cwd(), dir) || dir
      if (unreported) {
        vitest.logger.error(
          `agentevalops: bundle ${terminalText(shown)} is interrupted; run its missing trials with: ` +
            `AGENTEVALOPS_RESUME=${terminalText(shown)} npx vitest run --project ${this.options.project}`,
        )
      }
      this.warnAboutUnbundled(metadata, trials, shown)
      vitest.logger.log(consoleSummary(trials, summary, shown))
      const problem = await appendGithubStepSummary(
        process.env,
        githubStepSummary({
          metadata,
          summary,
          trials,
          bundleDir: shown,
          viewUrl: process.env[VIEW_URL_ENV],
        }),
      )
      if (problem !== null) vitest.logger.warn(`agentevalops: ${problem}`)
      if (this.upload !== undefined) {
        const bundle = { dir, shown, status: metadata.status }
        if (!(await uploadSealed(bundle, this.upload, vitest.logger))) process.exitCode = 1
      }
    } catch (error) {
      // The staging folder stays: every finished trial's trace is still there to recover from.
      vitest.logger.error(
        `agentevalops: could not write the bundle of run ${terminalText(run.runId)} (${terminalText(errorMessage(error))}). ` +
          `Its traces are kept in ${terminalText(run.stagingDir)}.`,
      )
      process.exitCode = 1
    }
  }

  /**
   * The trials whose cases never ended although the run was not interrupted: their worker died. A trial that
   * finished (its record logged) just before is in the fold, as after an interrupt.
   */
  private unreported(run: OpenRun, modules: readonly TestModule[]): MetadataUnreported | undefined {
    const unended = unendedTrials(modules, this.options.project, this.requireVitest().config.root)
    if (unended.trials.length === 0) return undefined
    const folded = run.fold.index.present(
      new Set(unended.trials.flatMap((t) => t.trials.map((n) => trialKey(t.benchmark, t.taskId, n)))),
    )
    const trials = unended.trials
      .map((t) => ({
        ...t,
        trials: t.trials.filter((n) => !folded.has(trialKey(t.benchmark, t.taskId, n))),
      }))
      .filter((t) => t.trials.length > 0)
    return trials.length === 0 ? undefined : { files: unended.files, trials }
  }

  private async writeRun(
    run: OpenRun,
    reason: TestRunEndReason,
    { registered, gates }: { registered: RegisteredTrials[]; gates: PassRateGate[] },
    unreported: MetadataUnreported | undefined,
  ): Promise<{ dir: string; trials: ScoredTrial[]; summary: RunSummary; metadata: RunMetadata }> {
    const traceFindings = run.fold.index.traceFindings()
    if (traceFindings.length > 0) throw invalidTraces(traceFindings)
    const tally = new SealTally(run.runId, this.settings, { keepSlims: true })
    const parts = await writeSortedParts(
      run.fold,
      run.fold.index.sorted(),
      run.growing.parts.map((p) => p.file),
      tally,
    )
    try {
      return await this.sealRun(run, reason, { registered, gates }, unreported, parts, tally)
    } catch (e) {
      await parts.abandon()
      throw e
    }
  }

  private async sealRun(
    run: OpenRun,
    reason: TestRunEndReason,
    { registered, gates }: { registered: RegisteredTrials[]; gates: PassRateGate[] },
    unreported: MetadataUnreported | undefined,
    parts: SortedParts,
    tally: SealTally,
  ): Promise<{ dir: string; trials: ScoredTrial[]; summary: RunSummary; metadata: RunMetadata }> {
    const vitest = this.requireVitest()
    const slims = tally.slims
    const { value: summary, stage: score } = timeStage(() => tally.wholeSummary())
    const { targets, benchmarks } = tally
    const finishedAt = new Date()
    const shard = this.options.shard ?? vitest.config.shard ?? null
    const testNamePattern = vitest.config.testNamePattern?.source ?? null
    const project = vitest.projects.find((p) => p.name === this.options.project)
    const metadata: RunMetadata = {
      schemaVersion: BUNDLE_FORMAT_VERSION,
      runId: run.runId,
      status: reason === 'interrupted' || unreported ? 'interrupted' : shard ? 'partial-shard' : 'complete',
      labels: this.options.labels,
      target: targets[0] ?? null,
      targets,
      benchmark: benchmarks[0] ?? null,
      benchmarks,
      startedAt: run.startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationSec: (finishedAt.getTime() - run.startedAt.getTime()) / 1000,
      sdkVersion: sdkVersion(),
      git: await run.git,
      node: process.version,
      vitest: vitest.version,
      // A shard's trials are a part of what the run's config runs: its shards must agree on a hash of the whole.
      configHash:
        this.options.configHash ??
        (shard ? this.startConfigHash(vitest) : undefined) ??
        checksumOf({
          project: this.options.project,
          include: project?.config.include ?? [],
          maxConcurrency: project?.config.maxConcurrency ?? null,
          targets,
          benchmarks,
          evaluators: tally.evaluators,
          labels: this.options.labels,
        }),
      seed: this.settings.bootstrap.seed,
      shard,
      vitestProject: this.options.project,
      testNamePattern,
      trialCount: slims.length,
      // Only where trial cases were seen: records reach the reporter from them, so none means nothing to check.
      ...(registered.length > 0 ? { registeredTrials: registered } : {}),
      ...(unreported ? { unreported } : {}),
      resumedFrom: run.resume.map((r) => r.runId),
      runGroup: run.runGroup,
      ...(gates.length > 0 ? { gates } : {}),
    }
    // The console and job summaries and the baseline comparison read only what the slim forms keep.
    const trials = slims.map(reportTrial)
    // Half a run measured against a whole one would read as a regression: an interrupted run is not compared.
    const comparison =
      metadata.status === 'interrupted' ? undefined : await this.comparison(run, trials, benchmarks)
    if (comparison) summary.comparison = comparison
    const sealed = { summary, tasks: tally.tasks }
    const scores = await parts.finishScores(sealed)
    const derived = derivedRunFiles({
      metadata,
      trials: [],
      summary: sealed,
      score,
      ...(await run.growing.sealed(parts.parts, tally.totals, run.fold.dir)),
    })
    const derivedFiles = await derived.derivedFiles([])
    const dir = await sealBundle({
      runsDir: run.runsDir,
      metadata,
      trials: tally.keys,
      traces: parts.traces,
      scores,
      reports: { 'report.md': renderMarkdownReport({ metadata, trials: tally.report, summary: sealed }) },
      extraFiles: [
        ...(await recordingsFile(run.stagingDir)),
        ...(await artifactFiles(run.stagingDir)),
        ...derivedFiles,
      ],
      replayCommand: replayCommand({
        root: vitest.config.root,
        project: this.options.project,
        files: [...run.files],
        testNamePattern,
        shard,
        env: process.env,
        config: this.options.replay,
      }),
    })
    const exportWarning = await derived.exportSpans(dir)
    if (exportWarning !== null) vitest.logger.warn(`agentevalops: ${exportWarning}`)
    return { dir, trials, summary, metadata }
  }

  /**
   * A registered trial whose record never arrived (its case crashed first, its record was invalid) is said here, as
   * validate-bundle says it: the bundle is written all the same, with every trial that did arrive.
   */
  private warnAboutUnbundled(metadata: RunMetadata, trials: readonly ScoredTrial[], shown: string): void {
    if (!metadata.registeredTrials || metadata.status === 'interrupted') return
    const { missing } = differenceFromRegistered(metadata.registeredTrials, trials)
    if (missing.length === 0) return
    this.requireVitest().logger.error(
      `agentevalops: ${missing.length} trial(s) the run registered are not in bundle ${terminalText(shown)}: ${terminalText(nameTrials(missing))}. ` +
        'Their cases ended without a trial record: see their errors above.',
    )
  }

  /**
   * The kept staging folders of the interrupted bundles this run resumed: now that its bundle holds every trial,
   * each with its whole trace, their partial traces are done with.
   */
  private async removeResumedStagings(run: OpenRun): Promise<void> {
    const resumed = new Set(run.resume.map((r) => r.runId))
    if (resumed.size === 0) return
    for (const stale of await unrecoveredStagings(run.runsDir, basename(run.stagingDir))) {
      if (!stale.bundled || !resumed.has(stale.runId)) continue
      await removeStaging(stale.dir)
      this.requireVitest().logger.log(
        `agentevalops: removed ${terminalText(relative(process.cwd(), stale.dir) || stale.dir)}, the staging folder of resumed run ${terminalText(stale.runId)}`,
      )
    }
  }

  /** Staging folders of runs that died without a bundle: their finished trials are one command away. */
  private async warnAboutUnrecovered(runsDir: string, own: string): Promise<void> {
    for (const stale of await unrecoveredStagings(runsDir, own)) {
      const shown = terminalText(relative(process.cwd(), stale.dir) || stale.dir)
      if (stale.bundled) {
        const bundle = terminalText(
          relative(process.cwd(), join(runsDir, stale.runId)) || join(runsDir, stale.runId),
        )
        this.requireVitest().logger.warn(
          `agentevalops: ${shown} keeps the traces of run ${terminalText(stale.runId)}, whose bundle ${bundle} is interrupted. ` +
            `Finish it with: AGENTEVALOPS_RESUME=${bundle} npx vitest run --project ${this.options.project}`,
        )
        continue
      }
      this.requireVitest().logger.warn(
        `agentevalops: ${shown} holds ${stale.records} finished trial(s) of run ${terminalText(stale.runId)}, ` +
          `which ended without a bundle. Recover them with: npx agentevalops recover ${shown}`,
      )
    }
  }

  /**
   * The run-level baseline's comparison over all trials; without one, the comparison of the run's only baseline
   * gate case. A baseline that cannot be used fails the run with the reason, and the bundle is written without it.
   */
  private async comparison(
    run: OpenRun,
    trials: readonly ScoredTrial[],
    benchmarks: readonly BenchmarkInfo[],
  ): Promise<BaselineComparison | undefined> {
    const baseline = this.options.baseline
    if (!baseline) return run.gateComparisons.length === 1 ? run.gateComparisons[0] : undefined
    try {
      const { comparison } = await compareWithBaseline(
        { spec: baseline.spec, runsDir: run.runsDir, options: baseline.options },
        { runId: run.runId, benchmarks, trials },
      )
      return comparison
    } catch (error) {
      this.requireVitest().logger.error(
        `agentevalops: no baseline comparison for run ${terminalText(run.runId)}: ${terminalText(errorMessage(error))}`,
      )
      process.exitCode = 1
      return undefined
    }
  }

  /**
   * The run group of this run's shards (see src/core/run-group.ts), from the config hash as it is known at the
   * start.
   */
  private runGroup(vitest: Vitest): string | null {
    return runGroupFor(
      this.startConfigHash(vitest),
      runKeyFromEnv(process.env),
      this.options.shard ?? vitest.config.shard ?? null,
    )
  }

  /**
   * The config hash as every shard knows it from the start. Outside config mode the hash of a whole run is made at
   * the end, from what its trials ran, which one shard may lack (a benchmark none of its tasks is drawn from): a
   * shard's hash is made of the project, its eval files and the labels instead.
   */
  private startConfigHash(vitest: Vitest): string {
    const project = vitest.projects.find((p) => p.name === this.options.project)
    return (
      this.options.configHash ??
      checksumOf({
        project: this.options.project,
        include: project?.config.include ?? [],
        labels: this.options.labels,
      })
    )
  }

  private requireVitest(): Vitest {
    if (!this.vitest) throw new Error('agentevalops: BundleReporter used before onInit')
    return this.vitest
  }
}

/** The run ids of the bundles to resume, read from their metadata: a folder that is no bundle stops the run. */
async function resolveResume(
  dirs: readonly string[],
  root: string,
): Promise<{ dir: string; runId: string }[]> {
  const resolved: { dir: string; runId: string }[] = []
  for (const given of dirs) {
    const dir = resolve(root, given)
    let metadata: RunMetadata
    try {
      metadata = RunMetadata.parse(JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')))
    } catch (e) {
      throw new AgentEvalOpsError('BUNDLE_NOT_FOUND', `cannot resume from ${given}: ${errorMessage(e)}`, {
        hint: 'Name the folder of an earlier bundle (runs/<runId>), e.g. the interrupted run to finish.',
      })
    }
    resolved.push({ dir, runId: metadata.runId })
  }
  return resolved
}

type MetadataUnreported = NonNullable<RunMetadata['unreported']>

/**
 * A runs folder the run cannot write to, with the reason `agentevalops doctor` gives: below a read-only folder a
 * recursive mkdir says ENOENT, where the probe finds EROFS or EACCES.
 */
async function runsDirFailure(runsDir: string, cause: unknown): Promise<AgentEvalOpsError> {
  const why = (await whyNotWritable(runsDir)) ?? cause
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `cannot write to the runs folder ${runsDir}: ${errorMessage(why)}.`,
    {
      hint: 'Make the folder writable, or choose another with AGENTEVALOPS_RUNS_DIR or agentEvalOps({ runsDir }).',
      cause,
    },
  )
}
