import { join } from 'node:path'
import * as z from 'zod'
import { BenchmarkInfo, RunnerInfo, TraceEvent, TrialRecord } from './schemas.ts'
import { SummarySettings } from './summary.ts'

/*
 * What a running run keeps in its staging folder (`<runsDir>/.staging/<name>/`), so that a run killed at any moment
 * can be turned into a bundle by `agentevalops recover`:
 *   run.json                              the run header, written at run start
 *   logs/<pid>-<threadId>.jsonl           one append-only log per worker (process and thread), shared by every trial
 *                                         it runs, group-committed; one JSON object a line, with exactly one key:
 *                                           {"benchmark":StagedBenchmark}  once per benchmark per log, first
 *                                           {"event":TraceEvent}           each trace event, as the engine emits it
 *                                           {"record":TrialRecord}         a finished trial, after all its events
 *                                         A trial's events are on disk before its record; a trial with events and
 *                                         no record is unfinished. A torn last line is not (yet) complete.
 *   recordings/                           the model-call exchanges trials used
 *   artifacts/                            the files trials produced
 * A record's tracePath (`traces/<benchmark>/<task>.t<n>.jsonl`) is the trial's id in the bundle, not a file here.
 * Staging folders of older SDKs are still read: traces/<benchmark>/<task>.t<n>.jsonl (a trial's events),
 * traces/<benchmark>/benchmark.json, records/<benchmark>/<pid>.records.jsonl and records/<benchmark>/<task>.t<n>.json.
 */

export const RUN_HEADER_FILE = 'run.json'
export const BENCHMARK_INFO_FILE = 'benchmark.json'

export const RunHeader = z.object({
  v: z.literal(1),
  runId: z.string().min(1),
  startedAt: z.iso.datetime({ offset: true }),
  /** The process that runs it, and where: a live run's staging folder is not another run's to recover. */
  pid: z.number().int().positive(),
  hostname: z.string(),
  vitestProject: z.string(),
  labels: z.record(z.string(), z.string()),
  configHash: z.string().nullable(),
  testNamePattern: z.string().nullable(),
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  /** metadata.runGroup, for a recovered bundle to stay in its run's group. Headers of older SDKs have none. */
  runGroup: z.string().nullable().optional(),
  vitest: z.string(),
  node: z.string(),
  sdkVersion: z.string(),
  /** How the run's statistics are computed, for a recovered bundle to compute them alike. */
  statistics: SummarySettings.optional(),
  /** The replay command as far as it is known at the start (the eval files are known only at the end). */
  replayCommand: z.string(),
})
export type RunHeader = z.infer<typeof RunHeader>

/** What benchmark and runner a folder of traces belongs to: an unfinished trial has no record that says so. */
export const StagedBenchmark = z.object({ benchmark: BenchmarkInfo, runner: RunnerInfo })
export type StagedBenchmark = z.infer<typeof StagedBenchmark>

/** The staging folder's folder of worker logs. */
export const WORKER_LOG_DIR = 'logs'
export const WORKER_LOG_SUFFIX = '.jsonl'

/** The log of the worker `pid`/`threadId` (worker_threads' threadId; 0 in a child process's main thread). */
export function workerLogPath(stagingDir: string, pid: number, threadId: number): string {
  return join(stagingDir, WORKER_LOG_DIR, `${pid}-${threadId}${WORKER_LOG_SUFFIX}`)
}

/** One line of a worker log: see the layout above. */
export const WorkerLogLine = z.union([
  z.strictObject({ benchmark: StagedBenchmark }),
  z.strictObject({ event: TraceEvent }),
  z.strictObject({ record: TrialRecord }),
])
export type WorkerLogLine = { benchmark: StagedBenchmark } | { event: TraceEvent } | { record: TrialRecord }

/**
 * The log a worker appends its finished trials' records to, one JSON line each, beside the record files older SDKs
 * wrote (`recordPathFor`): `records/<benchmark folder>/<pid>.records.jsonl`, relative to the staging folder.
 */
export function recordLogPathFor(tracePath: string, pid: number): string {
  const folder = tracePath.replace(/^traces\//, 'records/').replace(/\/[^/]*$/, '')
  return `${folder}/${pid}${RECORD_LOG_SUFFIX}`
}

export const RECORD_LOG_SUFFIX = '.records.jsonl'

/** The record file of a trial, from its trace path (both relative to the staging folder). */
export function recordPathFor(tracePath: string): string {
  return tracePath.replace(/^traces\//, 'records/').replace(/\.jsonl$/, '.json')
}
