import { z } from 'zod'
import { BenchmarkInfo, RunnerInfo } from './schemas.ts'
import { SummarySettings } from './summary.ts'

/*
 * What a running run keeps in its staging folder (`<runsDir>/.staging/<name>/`), so that a run killed at any moment
 * can be turned into a bundle by `agentevalops recover`:
 *   run.json                              the run header, written at run start
 *   traces/<benchmark>/<task>.t<n>.jsonl  each trial's events, appended durably as they happen
 *   traces/<benchmark>/benchmark.json     the benchmark and runner of those traces, written before the first trial
 *   records/<benchmark>/<pid>.records.jsonl  each finished trial's TrialRecord, a line appended by its worker
 *                                         (records/<benchmark>/<task>.t<n>.json from older SDKs is still read)
 *   recordings/                           the model-call exchanges trials used
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
