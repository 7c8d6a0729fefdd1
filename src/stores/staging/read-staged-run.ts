import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import {
  BENCHMARK_INFO_FILE,
  RUN_HEADER_FILE,
  RunHeader,
  StagedBenchmark,
  TrialRecord,
  errorMessage,
  recordPathFor,
  RECORD_LOG_SUFFIX,
  benchmarkTraceDir,
  type TraceEvent,
} from '../../core/index.ts'
import { parseTraceJsonl, type TraceFileContents } from '../parse-trace.ts'
import { traceFileName } from '../trace-file-name.ts'
import { indexWorkerLogs, readLoggedTrace, type LoggedTrace } from './log-index.ts'

/** One trial found in a staging folder: its record (read, or made up for an unfinished trial) and where its trace is. */
export interface StagedTrial {
  record: TrialRecord
  /** False when the run died before the trial finished: the record says `interrupted`. */
  finished: boolean
  /** Where its events are in a worker log; absent for a staging folder of an older SDK (a trace file per trial). */
  logged?: LoggedTrace
}

export interface StagedRun {
  dir: string
  /** Undefined when the run died before writing it (or it is damaged); `warnings` says so. */
  header: RunHeader | undefined
  runId: string
  trials: StagedTrial[]
  warnings: string[]
}

/**
 * Reads what a run left in its staging folder: every finished trial's record, and for each trace without one a
 * record marked `interrupted` over its durable prefix. The worker logs (logs/) are read, and the layout of older
 * SDKs (a trace file per trial) beside them. A torn last line is dropped with a warning; nothing in the folder makes
 * this throw but a folder that is not a staging folder at all. Trials come in bundle order (benchmark, task, trial).
 */
export async function readStagedRun(dir: string): Promise<StagedRun> {
  const warnings: string[] = []
  const header = await readHeader(dir, warnings)
  const trials: StagedTrial[] = []
  const logs = await indexWorkerLogs(dir, { records: 'validate' })
  warnings.push(...logs.warnings)
  for (const logged of logs.trials.values()) {
    if (logged.record) {
      trials.push({ record: logged.record, finished: true, logged: logged.trace })
      continue
    }
    const tracePath = `${benchmarkTraceDir('', logged.benchmark)}/${traceFileName(logged.taskId, logged.trial)}`
    const trial = await unfinishedTrial(
      tracePath,
      () => readLoggedTrace(logged.trace).then((text) => parseTrace(text, tracePath)),
      logs.benchmarks.get(logged.benchmark),
      header?.runId,
      warnings,
    )
    if (trial) trials.push({ ...trial, logged: logged.trace })
  }
  const inLogs = new Set(trials.map((t) => trialKeyOf(t.record)))
  const logged = await readRecordLogs(dir, warnings)
  const tracesDir = join(dir, 'traces')
  const benchmarkDirs = await readdir(tracesDir, { withFileTypes: true }).catch(() => [])
  for (const entry of benchmarkDirs.filter((e) => e.isDirectory()).sort(byName)) {
    const staged = await readBenchmarkInfo(join(tracesDir, entry.name), warnings)
    const files = (await readdir(join(tracesDir, entry.name))).filter((f) => f.endsWith('.jsonl')).sort()
    for (const file of files) {
      const tracePath = `traces/${entry.name}/${file}`
      const record = logged.get(tracePath)
      const trial = record
        ? { record, finished: true }
        : await readTrial(dir, tracePath, staged, header?.runId, warnings)
      if (trial && !inLogs.has(trialKeyOf(trial.record))) trials.push(trial)
    }
  }
  trials.sort((a, b) => byTrial(a.record, b.record))
  const runId = header?.runId ?? trials[0]?.record.runId ?? basename(dir)
  return { dir, header, runId, trials, warnings }
}

function trialKeyOf(r: TrialRecord): string {
  return `${r.benchmark.id}\u0000${r.taskId}\u0000${r.trial}`
}

function byTrial(a: TrialRecord, b: TrialRecord): number {
  return cmp(a.benchmark.id, b.benchmark.id) || cmp(a.taskId, b.taskId) || a.trial - b.trial
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * A trial's events as the bundle takes them: the durable prefix, and a closing terminal event if it never ended.
 * Events staged by an SDK from before events named their benchmark get their trial's.
 */
export async function stagedTrialEvents(dir: string, trial: StagedTrial): Promise<TraceEvent[]> {
  const benchmark = trial.record.benchmark.id
  const trace = trial.logged
    ? parseTrace(await readLoggedTrace(trial.logged), trial.record.tracePath)
    : await readTrace(join(dir, trial.record.tracePath))
  const events = trace.events.map((e) => (e.benchmark === undefined ? { ...e, benchmark } : e))
  if (events.some((e) => e.kind === 'agent.terminal')) return events
  const last = events.at(-1)
  return [
    ...events,
    {
      runId: trial.record.runId,
      benchmark,
      taskId: trial.record.taskId,
      trial: trial.record.trial,
      step: last ? last.step + 1 : 0,
      ts: last?.ts ?? new Date().toISOString(),
      kind: 'agent.terminal',
      payload: {
        terminatedBy: 'interrupted',
        success: false,
        error: 'the run was killed before this trial finished; recovered from its durable trace',
      },
      costDeltaUsd: 0,
      tokensDelta: 0,
      spanId: randomBytes(8).toString('hex'),
    },
  ]
}

async function readTrial(
  dir: string,
  tracePath: string,
  staged: StagedBenchmark | undefined,
  runId: string | undefined,
  warnings: string[],
): Promise<StagedTrial | undefined> {
  const record = await readRecord(join(dir, recordPathFor(tracePath)), warnings)
  if (record) return { record, finished: true }
  return unfinishedTrial(tracePath, () => readTrace(join(dir, tracePath)), staged, runId, warnings)
}

/** An `interrupted` record over the durable prefix of a trial that has events and no record. */
async function unfinishedTrial(
  tracePath: string,
  read: () => Promise<TraceFileContents>,
  staged: StagedBenchmark | undefined,
  runId: string | undefined,
  warnings: string[],
): Promise<StagedTrial | undefined> {
  let trace: TraceFileContents
  try {
    trace = await read()
  } catch (e) {
    warnings.push(`${tracePath}: left out, its trace cannot be read (${errorMessage(e)})`)
    return undefined
  }
  if (trace.truncatedTail) warnings.push(`${tracePath}: dropped a torn last line (the run died mid-write)`)
  const first = trace.events[0]
  if (!first) {
    warnings.push(`${tracePath}: left out, the trial had written no complete event`)
    return undefined
  }
  if (!staged) warnings.push(`${tracePath}: its benchmark and runner are unknown (no ${BENCHMARK_INFO_FILE})`)
  const events = trace.events
  const sum = (f: (e: TraceEvent) => number) => events.reduce((total, e) => total + f(e), 0)
  const turns = events.filter((e) => e.kind === 'agent.model_call' && e.payload['status'] !== 'error').length
  const wallSeconds = (Date.parse(events.at(-1)!.ts) - Date.parse(first.ts)) / 1000
  const terminated = events.some((e) => e.kind === 'agent.terminal')
  return {
    finished: false,
    record: TrialRecord.parse({
      runId: runId ?? first.runId,
      benchmark: staged?.benchmark ?? {
        id: first.benchmark ?? basename(tracePath.split('/')[1] ?? 'unknown'),
        version: '',
        datasetChecksum: '',
      },
      taskId: first.taskId,
      taskChecksum: '',
      trial: first.trial,
      outcome: 'interrupted',
      passed: false,
      result: null,
      scores: [],
      verdicts: [],
      usage: {
        tokens: sum((e) => e.tokensDelta),
        costUsd: sum((e) => e.costDeltaUsd),
        wallSeconds: Math.max(0, wallSeconds),
        turns,
      },
      runner: staged?.runner ?? { name: 'unknown', kind: 'unknown', config: {} },
      tracePath,
      eventCount: events.length + (terminated ? 0 : 1),
      warnings: ['recovered: the run was killed before this trial finished'],
      labels: {},
    }),
  }
}

async function readTrace(path: string): Promise<TraceFileContents> {
  return parseTrace(await readFile(path, 'utf8'), path)
}

/** Validated: these are files of a run that may have died mid-write, read back. */
function parseTrace(text: string, file: string): TraceFileContents {
  return parseTraceJsonl(text, { file, tolerateTruncatedTail: true })
}

async function readHeader(dir: string, warnings: string[]): Promise<RunHeader | undefined> {
  const parsed = await readJson(join(dir, RUN_HEADER_FILE), RunHeader)
  if (!parsed.ok)
    warnings.push(`${RUN_HEADER_FILE}: ${parsed.why}; the run's labels and settings are unknown`)
  return parsed.ok ? parsed.value : undefined
}

async function readBenchmarkInfo(dir: string, warnings: string[]): Promise<StagedBenchmark | undefined> {
  const parsed = await readJson(join(dir, BENCHMARK_INFO_FILE), StagedBenchmark)
  if (!parsed.ok && parsed.why !== 'missing')
    warnings.push(`${basename(dir)}/${BENCHMARK_INFO_FILE}: ${parsed.why}`)
  return parsed.ok ? parsed.value : undefined
}

/** The records the workers' logs hold, by trace path; a torn or damaged line is left out with a warning. */
async function readRecordLogs(dir: string, warnings: string[]): Promise<Map<string, TrialRecord>> {
  const records = new Map<string, TrialRecord>()
  const recordsDir = join(dir, 'records')
  const folders = await readdir(recordsDir, { withFileTypes: true }).catch(() => [])
  for (const folder of folders.filter((e) => e.isDirectory()).sort(byName)) {
    const logs = (await readdir(join(recordsDir, folder.name)))
      .filter((f) => f.endsWith(RECORD_LOG_SUFFIX))
      .sort()
    for (const log of logs) {
      const path = `records/${folder.name}/${log}`
      const lines = (await readFile(join(dir, path), 'utf8')).split('\n')
      lines.forEach((line, i) => {
        if (line.trim() === '') return
        let parsed: ReturnType<typeof TrialRecord.safeParse> | undefined
        try {
          parsed = TrialRecord.safeParse(JSON.parse(line))
        } catch {
          parsed = undefined
        }
        if (parsed?.success) records.set(parsed.data.tracePath, parsed.data)
        else if (i === lines.length - 1)
          warnings.push(`${path}: dropped a torn last line (the run died mid-write)`)
        else warnings.push(`${path}:${i + 1}: not a trial record; its trial counts as unfinished`)
      })
    }
  }
  return records
}

async function readRecord(path: string, warnings: string[]): Promise<TrialRecord | undefined> {
  const parsed = await readJson(path, TrialRecord)
  if (!parsed.ok && parsed.why !== 'missing')
    warnings.push(`${path}: ${parsed.why}; the trial counts as unfinished`)
  return parsed.ok ? parsed.value : undefined
}

type Parsed<T> = { ok: true; value: T } | { ok: false; why: string }

async function readJson<T>(
  path: string,
  schema: {
    safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } }
  },
): Promise<Parsed<T>> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    return { ok: false, why: 'missing' }
  }
  try {
    const parsed = schema.safeParse(JSON.parse(text))
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, why: 'does not match its schema' }
  } catch (e) {
    return { ok: false, why: `not valid JSON (${errorMessage(e)})` }
  }
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}
