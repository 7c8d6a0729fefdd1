import { createHash } from 'node:crypto'
import { join, posix } from 'node:path'
import * as z from 'zod'
import { safeFileStem } from './file-name.ts'
import type { TrialRecord } from './schemas.ts'

/**
 * The contract between the Vitest reporter (main process) and eval cases (workers): the reporter `provide`s the
 * current run under PROVIDE_KEY at every run start; each case hands a TrialCaseSummary of its trial back in
 * `task.meta[META_KEY]` (the record itself is in the worker's log, which the bundle reporter reads).
 */
export const PROVIDE_KEY = 'agentevalops'
export const META_KEY = 'agentevalops'

/**
 * What a trial case's meta carries (META_KEY): the few facts a live reporter counts (progress: outcome, pass, cost),
 * not the whole record, which would cross from the worker to the main process a second time with every case.
 */
export interface TrialCaseSummary {
  /**
   * The run whose bundle holds the trial: after `vitest --merge-reports` the cases of every shard are replayed
   * together, and this says which shards' bundles make the merged one.
   */
  runId: string
  benchmark: string
  taskId: string
  trial: number
  outcome: TrialRecord['outcome']
  passed: boolean
  usage: { costUsd: number }
  scores: { evaluatorId: string; costUsd: number }[]
  reusedFrom: { mode: NonNullable<TrialRecord['reusedFrom']>['mode'] } | null
}

/** The summary of a record that its case's meta carries. */
export function trialCaseSummary(record: TrialRecord): TrialCaseSummary {
  return {
    runId: record.runId,
    benchmark: record.benchmark.id,
    taskId: record.taskId,
    trial: record.trial,
    outcome: record.outcome,
    passed: record.passed,
    usage: { costUsd: record.usage.costUsd },
    scores: record.scores.map((s) => ({ evaluatorId: s.evaluatorId, costUsd: s.costUsd })),
    reusedFrom: record.reusedFrom ? { mode: record.reusedFrom.mode } : null,
  }
}
/** A benchmark's baseline gate case hands its comparison (a BaselineComparison) to the reporter under this key. */
export const COMPARISON_META_KEY = 'agentevalopsComparison'
/**
 * Static meta that evalBenchmark() gives each trial case (not its gate cases), so the number of trials is known
 * when a file is collected, before any trial has run.
 */
export const TRIAL_CASE_META_KEY = 'agentevalopsTrialCase'
/**
 * Static meta of each trial case beside TRIAL_CASE_META_KEY: which trial it is (a TrialCaseId), so the bundle can
 * say which trials the run registered, and a trial that never reached it is named.
 */
export const TRIAL_ID_META_KEY = 'agentevalopsTrial'
/** Static meta of a benchmark's pass-rate gate case: its PassRateGate, which the bundle's metadata lists. */
export const GATE_META_KEY = 'agentevalopsGate'
export const TrialCaseId = z.object({
  benchmark: z.string().min(1),
  taskId: z.string().min(1),
  trial: z.number().int().nonnegative(),
})
export type TrialCaseId = z.infer<typeof TrialCaseId>

export const ProvidedRun = z.object({
  runId: z.string().min(1),
  /** Staging folder of the run: per-trial trace files live below it until the bundle is written. */
  stagingDir: z.string().min(1),
  /** Where the run's bundle will land, beside earlier bundles (a baseline of `latest` is looked for here). */
  runsDir: z.string().min(1),
  /**
   * The run-level baseline (`--baseline`, AGENTEVALOPS_BASELINE, the plugin's `baseline`): every benchmark then
   * gets a gate case that fails on NO_GO. `options` are CompareOptions, checked where they are used.
   */
  baseline: z
    .object({ spec: z.string().min(1), options: z.record(z.string(), z.unknown()).default({}) })
    .nullable()
    .default(null),
  /** Bundles whose finished trials this run takes over instead of running them again (`--resume`). */
  resume: z.array(z.object({ dir: z.string().min(1), runId: z.string().min(1) })).default([]),
  /** The shard this process runs (see shard.ts): evalBenchmark registers the trials of its tasks only. */
  shard: z
    .object({ index: z.number().int().positive(), count: z.number().int().positive() })
    .nullable()
    .default(null),
})
export type ProvidedRun = z.infer<typeof ProvidedRun>

/** One folder per benchmark, so equal task ids in two benchmarks never share a trace file. */
export function benchmarkTraceDir(stagingDir: string, benchmarkId: string): string {
  return join(stagingDir, 'traces', benchmarkFolder(benchmarkId))
}

/** A benchmark's folder name under traces/ and artifacts/: readable, and distinct for ids that read alike. */
function benchmarkFolder(benchmarkId: string): string {
  let folder = folders.get(benchmarkId)
  if (folder === undefined) {
    const safe = benchmarkId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60)
    const tag = createHash('sha256').update(benchmarkId).digest('hex').slice(0, 8)
    folders.set(benchmarkId, (folder = `${safe}-${tag}`))
  }
  return folder
}

// Asked twice per trial, of a handful of benchmark ids.
const folders = new Map<string, string>()

/**
 * A trial's artifacts, relative to the staging folder and, the same path, to the bundle: `artifacts/<benchmark
 * folder>/<task>.t<n>/`. The benchmark folder is the one its traces use.
 */
export function trialArtifactsDir(benchmarkId: string, taskId: string, trial: number): string {
  return posix.join(ARTIFACTS_DIR, benchmarkFolder(benchmarkId), `${safeFileStem(taskId)}.t${trial}`)
}

/** The bundle's (and the staging folder's) folder of trial artifacts. */
export const ARTIFACTS_DIR = 'artifacts'

/** Where cases leave the model-call recordings their trials used, for the bundle's recordings.jsonl. */
export function recordingsStagingDir(stagingDir: string): string {
  return join(stagingDir, 'recordings')
}
