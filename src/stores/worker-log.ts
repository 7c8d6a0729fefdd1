import { appendFile, mkdir, open, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { threadId } from 'node:worker_threads'
import {
  AgentEvalOpsError,
  workerLogPath,
  type StagedBenchmark,
  type TraceEvent,
  type TraceStore,
  type TraceWriter,
  type TrialRecord,
} from '../core/index.ts'
import { GroupCommitFile, type GroupCommitStats } from './group-commit-file.ts'
import { closedError } from './jsonl-trace-store.ts'
import { parseTraceJsonl } from './parse-trace.ts'
import { traceFileName } from './trace-file-name.ts'

/**
 * How long the first append of a batch waits for others before its write + fsync: 0 is one turn of the event loop.
 * Appends that come while an fsync is in flight wait for the next round anyway, so under many trials in flight the
 * batches grow by themselves; a longer window only adds its length to every awaited trial end. bench/store.mjs
 * measures 0, 1, 2 and 5 ms (on the 2-core machine, 100 trials in flight: 0 ms fastest or level in every round).
 */
export const WORKER_LOG_COMMIT_DELAY_MS = 0

/**
 * The append-only log one worker (process and thread) writes in a run's staging folder: the benchmark lines, every
 * trace event and every finished trial's record of all the trials it runs, through one group-committed file.
 * See src/core/staging.ts for the line format and what a reader may rely on.
 */
export class WorkerLog {
  private readonly file: GroupCommitFile
  private readonly staged = new Set<string>()
  private readonly stores = new Map<string, WorkerLogTraceStore>()

  constructor(
    readonly path: string,
    commitDelayMs = WORKER_LOG_COMMIT_DELAY_MS,
  ) {
    this.file = new GroupCommitFile(
      path,
      async () => {
        await mkdir(dirname(path), { recursive: true })
        await endTornLine(path)
      },
      commitDelayMs,
      'a',
    )
  }

  get stats(): GroupCommitStats {
    return this.file.stats
  }

  get closed(): boolean {
    return this.file.closed
  }

  /**
   * Says which benchmark and runner the events that follow belong to (an unfinished trial has no record that says
   * so), once per benchmark id. Not awaited by the caller: it is on disk before any event or record after it.
   */
  stageBenchmark(info: StagedBenchmark): Promise<void> {
    if (this.staged.has(info.benchmark.id)) return Promise.resolve()
    this.staged.add(info.benchmark.id)
    return this.append(`{"benchmark":${JSON.stringify(info)}}\n`)
  }

  /** Resolves once the record, and so every event appended before it, is on disk. */
  appendRecord(record: TrialRecord): Promise<void> {
    return this.append(`{"record":${JSON.stringify(record)}}\n`)
  }

  /** A trace store of one benchmark's trials: each writer appends its events to this log. */
  traceStore(benchmarkId: string): WorkerLogTraceStore {
    let store = this.stores.get(benchmarkId)
    if (!store) this.stores.set(benchmarkId, (store = new WorkerLogTraceStore(this, benchmarkId)))
    return store
  }

  /** @internal the event lines' way in, for the trace writers. */
  appendLine(line: string): Promise<void> {
    return this.append(line)
  }

  /** Waits for every append and closes the file. */
  close(): Promise<void> {
    return this.file.close()
  }

  private append(line: string): Promise<void> {
    // Data handed to a closing file would be silently lost: a trial of a run that has ended says so instead.
    if (this.file.closed) {
      return Promise.reject(
        new AgentEvalOpsError('TRACE_STORE_CLOSED', `worker log ${this.path} is closed: its run has ended`, {
          hint: 'A trial outlived its run (a watch rerun started while it was running); run it again.',
        }),
      )
    }
    return this.file.append(line)
  }
}

/**
 * TraceStore over a worker log, for one benchmark. Paths are the per-trial names JsonlTraceStore gives
 * (`<task>.t<n>.jsonl`): they name a trial's trace in the bundle, not a file in staging.
 */
export class WorkerLogTraceStore implements TraceStore {
  constructor(
    private readonly log: WorkerLog,
    readonly benchmarkId: string,
  ) {}

  open(key: { taskId: string; trial: number }): WorkerLogTraceWriter {
    return new WorkerLogTraceWriter(traceFileName(key.taskId, key.trial), this.log)
  }

  /** The trial's events as the log holds them (its last attempt, if a retry ran it again), validated. */
  async read(path: string): Promise<TraceEvent[]> {
    const text = await readFile(this.log.path, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return ''
      throw e
    })
    let lines: string[] = []
    for (const line of text.split('\n')) {
      if (!line.startsWith('{"event":')) continue
      const event = (JSON.parse(line) as { event: TraceEvent }).event
      if (event.benchmark !== this.benchmarkId || traceFileName(event.taskId, event.trial) !== path) continue
      if (event.step === 0) lines = []
      lines.push(JSON.stringify(event))
    }
    if (lines.length === 0)
      throw new AgentEvalOpsError('TRACE_INVALID', `no trace ${path} in worker log ${this.log.path}`)
    return parseTraceJsonl(`${lines.join('\n')}\n`, { file: `${this.log.path} (${path})` }).events
  }
}

/**
 * One trial's writer into the shared log. finalize() closes this trial only (the log goes on for the others) and
 * does not wait for an fsync of its own: the trial's record, appended after its events and awaited, is what makes
 * them durable (one fsync per trial end, not two). durable() waits for that fsync, for a caller that appends no
 * record. A failed write fails every later append of the log, so the record append reports it.
 */
export class WorkerLogTraceWriter implements TraceWriter {
  private last: Promise<void> = Promise.resolve()
  private finalized = false

  constructor(
    readonly path: string,
    private readonly log: WorkerLog,
  ) {}

  /** Throws synchronously once finalized, so a late append can't vanish as an unobserved rejection. */
  append(event: TraceEvent): Promise<void> {
    if (this.finalized) throw closedError(this.path)
    const written = this.log.appendLine(`{"event":${JSON.stringify(event)}}\n`)
    // Batches commit in order: the last append's promise stands for all of this trial's.
    written.catch(() => undefined)
    this.last = written
    return Promise.resolve()
  }

  finalize(): Promise<void> {
    this.finalized = true
    return Promise.resolve()
  }

  /** Resolves once every event appended so far is on disk. */
  durable(): Promise<void> {
    return this.last
  }
}

/**
 * Ends a torn last line left by an earlier writer of the file (one that died mid-append), so that the first line
 * appended now starts a line of its own: readers then drop one damaged line, not the damaged line and ours.
 */
async function endTornLine(path: string): Promise<void> {
  let handle
  try {
    handle = await open(path, 'r')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
    throw e
  }
  let torn = false
  try {
    const { size } = await handle.stat()
    if (size > 0) {
      const last = Buffer.alloc(1)
      await handle.read(last, 0, 1, size - 1)
      torn = last[0] !== 0x0a
    }
  } finally {
    await handle.close()
  }
  if (torn) await appendFile(path, '\n')
}

// The log this worker writes in the current run; module state, so a module loaded afresh (Vitest isolates each test
// file) opens the same file again, for append.
let current: WorkerLog | undefined

/**
 * This worker's log in the run staged at `stagingDir`. A new staging folder is a new run (watch mode): the previous
 * run's log is closed, once what it was handed is on disk.
 */
export function workerLogFor(stagingDir: string): WorkerLog {
  const path = workerLogPath(stagingDir, process.pid, threadId)
  if (current?.path !== path) {
    const previous = current
    current = new WorkerLog(path)
    // Its trials awaited their records; a failure was theirs to report.
    previous?.close().catch(() => undefined)
  }
  return current
}
