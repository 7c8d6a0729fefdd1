// A runs folder of one benchmark over time, as `agentevalops view` shows it: N real sealed bundles of one target
// whose pass rate improves, with one flaky task, one that regresses in the last run and one that never passes. Each
// run after the first carries its comparison with the run before (the reporter's `--baseline` does the same), so
// verdicts exist.
import { createHash } from 'node:crypto'
import { writeBundle } from '../../src/bundles/index.ts'
import {
  BUNDLE_FORMAT_VERSION,
  type BenchmarkInfo,
  type RunMetadata,
  type RunnerInfo,
  type TraceEvent,
  type TrialRecord,
} from '../../src/core/index.ts'
import { compareToBaseline, DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../src/scorers/index.ts'
import { scoredTrial } from './trials.ts'

/** The series' benchmark and target unless the options name others. */
export const SERIES_BENCHMARK = 'series-bench'
export const SERIES_TARGET = 'improving-agent'

/** The tasks of every run, by the part they play. */
export const SERIES_TASKS = {
  /** Pass in every run. */
  alwaysPass: ['always-0', 'always-1'],
  /** Fail until a run of their own (spread over the series, never the last two), then pass: the target improves. */
  improving: Array.from({ length: 8 }, (_, i) => `improves-${i}`),
  /** Fails in every third run (the 2nd, 5th, 8th, …), passes in the others. */
  flaky: 'flaky',
  /** Passes in every run but the last. */
  regressed: 'regresses',
  /** Fails in every run. */
  neverPassed: 'never-passes',
} as const

export interface BundleSeriesOptions {
  /** Runs (default 30). */
  count?: number
  /** Trials of each task in each run (default 1); all trials of a task in a run share its outcome. */
  trials?: number
  benchmark?: string
  /** The runner's name: the series' target. */
  target?: string
  /** When the first run started (default 2026-01-01T00:00:00.000Z); each next run one hour later. */
  firstStartedAt?: string
  /** Give each run after the first its comparison with the run before (default true). */
  baselines?: boolean
  /** Run ids are numbered from this one up (default 1): two series in one folder need their own. */
  firstId?: number
  /** Whether a trial passes, instead of the series' plan (`passes`): for trials of a task that disagree. */
  outcome?: (taskId: string, index: number, trial: number) => boolean
  /** Leave these tasks out of the runs with these indexes (0-based), as a dataset that gained or lost tasks. */
  omit?: Readonly<Record<number, readonly string[]>>
}

/** One bundle of the series, oldest first. */
export interface SeriesRun {
  runId: string
  dir: string
  startedAt: string
  /** Index in the series, 0-based. */
  index: number
}

const ONE_HOUR_MS = 3_600_000

/** Writes the series into `runsDir` (created if needed), one bundle after the other, and returns them oldest first. */
export async function writeBundleSeries(
  runsDir: string,
  options: BundleSeriesOptions = {},
): Promise<SeriesRun[]> {
  const count = options.count ?? 30
  const benchmark: BenchmarkInfo = {
    id: options.benchmark ?? SERIES_BENCHMARK,
    version: '1.0.0',
    datasetChecksum: 'a'.repeat(64),
  }
  const runner: RunnerInfo = { name: options.target ?? SERIES_TARGET, kind: 'mock', config: {} }
  const first = Date.parse(options.firstStartedAt ?? '2026-01-01T00:00:00.000Z')
  const runs: SeriesRun[] = []
  let previous: { runId: string; trials: TrialRecord[] } | undefined
  for (let index = 0; index < count; index++) {
    const runId = `0190f5a0-0000-7000-8000-${String(index + (options.firstId ?? 1)).padStart(12, '0')}`
    const startedAt = new Date(first + index * ONE_HOUR_MS).toISOString()
    const omitted = new Set(options.omit?.[index] ?? [])
    const trials = allTasks()
      .filter((taskId) => !omitted.has(taskId))
      .flatMap((taskId) =>
        Array.from({ length: options.trials ?? 1 }, (_, trial) =>
          seriesTrial(
            runId,
            benchmark,
            runner,
            taskId,
            trial,
            options.outcome?.(taskId, index, trial) ?? passes(taskId, index, count),
          ),
        ),
      )
    const summary = summarizeTrials(trials, DEFAULT_SUMMARY_SETTINGS)
    if (previous && options.baselines !== false)
      summary.comparison = compareToBaseline(
        { runId: previous.runId, benchmarks: [benchmark], trials: previous.trials },
        { runId, benchmarks: [benchmark], trials },
      )
    const dir = await writeBundle({
      runsDir,
      metadata: metadata(runId, index, startedAt, benchmark, runner, trials.length),
      trials,
      summary,
      traceEvents: trials.flatMap(events),
      reports: { 'report.md': `# Run ${index + 1} of ${count}\n` },
      replayCommand: 'npx vitest run --project evals',
      createdAt: startedAt,
    })
    runs.push({ runId, dir, startedAt, index })
    previous = { runId, trials }
  }
  return runs
}

export function allTasks(): string[] {
  const t = SERIES_TASKS
  return [...t.alwaysPass, ...t.improving, t.flaky, t.regressed, t.neverPassed]
}

/** Whether `taskId` passes in run `index` of `count`. */
export function passes(taskId: string, index: number, count: number): boolean {
  const t = SERIES_TASKS
  if (taskId === t.flaky) return index % 3 !== 1
  if (taskId === t.regressed) return index < count - 1
  if (taskId === t.neverPassed) return false
  const improving = t.improving.indexOf(taskId)
  if (improving >= 0) return index >= improvesAt(improving, count)
  return true
}

/** The run from which improving task `i` passes: spread over runs 1 … count − 3, so the last two runs agree. */
function improvesAt(i: number, count: number): number {
  const span = Math.max(1, count - 3)
  return 1 + Math.floor((i * span) / SERIES_TASKS.improving.length)
}

function seriesTrial(
  runId: string,
  benchmark: BenchmarkInfo,
  runner: RunnerInfo,
  taskId: string,
  trial: number,
  passed: boolean,
): TrialRecord {
  return {
    ...scoredTrial({ taskId, trial, passed, benchmark: benchmark.id, runner: runner.name }),
    runId,
    benchmark,
    runner,
    tracePath: `traces/${benchmark.id}/${taskId}.t${trial}.jsonl`,
    eventCount: 3,
  }
}

/** The fewest events a valid trace has: the answer, the end, the score. */
function events(trial: TrialRecord): TraceEvent[] {
  const base = (step: number) => ({
    runId: trial.runId,
    benchmark: trial.benchmark.id,
    taskId: trial.taskId,
    trial: trial.trial,
    step,
    ts: '2026-01-01T00:00:00.000Z',
    costDeltaUsd: 0,
    tokensDelta: 0,
    spanId: (step + 1).toString(16).padStart(16, '0'),
  })
  const score = trial.scores[0]!
  return [
    { ...base(0), kind: 'agent.final_answer', payload: { answer: trial.result?.finalAnswer ?? '' } },
    {
      ...base(1),
      kind: 'agent.terminal',
      payload: { terminatedBy: 'completed', success: trial.passed, error: null },
    },
    {
      ...base(2),
      kind: 'evaluator.score',
      payload: { evaluatorId: score.evaluatorId, score: score.score, passed: score.passed },
    },
  ]
}

function metadata(
  runId: string,
  index: number,
  startedAt: string,
  benchmark: BenchmarkInfo,
  runner: RunnerInfo,
  trialCount: number,
): RunMetadata {
  return {
    schemaVersion: BUNDLE_FORMAT_VERSION,
    runId,
    status: 'complete',
    labels: { suite: 'series', build: String(index + 1) },
    target: runner,
    targets: [runner],
    benchmark,
    benchmarks: [benchmark],
    startedAt,
    finishedAt: new Date(Date.parse(startedAt) + 60_000).toISOString(),
    durationSec: 60,
    sdkVersion: '0.1.0',
    git: { sha: createHash('sha1').update(`commit ${index}`).digest('hex'), dirty: false },
    node: 'v20.19.0',
    vitest: '4.1.12',
    configHash: 'd'.repeat(64),
    seed: null,
    shard: null,
    vitestProject: 'evals',
    testNamePattern: null,
    trialCount,
    resumedFrom: [],
  }
}
