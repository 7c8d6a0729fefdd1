import { open, type FileHandle } from 'node:fs/promises'
import { basename } from 'node:path'
import { StagedBenchmark, TrialRecord, errorMessage } from '../../core/index.ts'
import { workerLogPaths } from './log-tail.ts'

/** Where one trial's events are in a worker log: byte ranges of its event lines, so they can be read on demand. */
export interface LoggedTrace {
  log: string
  /** [start, end) byte offsets, flattened: adjacent event lines are merged into one range. */
  ranges: number[]
}

/** One trial a worker log names: its benchmark, task and trial, its events' place, and its record once finished. */
export interface LoggedTrial {
  benchmark: string
  taskId: string
  trial: number
  trace: LoggedTrace
  events: number
  /** The record line, validated (with `records: 'validate'`) or as parsed (`'raw'`); absent while unfinished. */
  record?: TrialRecord
}

export interface LogIndex {
  /** By `trialKey`. */
  trials: Map<string, LoggedTrial>
  /** The benchmark lines, by benchmark id. */
  benchmarks: Map<string, StagedBenchmark>
  warnings: string[]
}

export interface IndexOptions {
  /** What to do with record lines: skip them, keep them as parsed, or validate them (files of a dead run). */
  records: 'skip' | 'raw' | 'validate'
}

export function trialKey(benchmark: string, taskId: string, trial: number): string {
  return `${benchmark}\u0000${taskId}\u0000${trial}`
}

const NEWLINE = 0x0a
const CHUNK = 1024 * 1024
const RECORD_PREFIX = '{"record":'

/**
 * One pass over every worker log of a staging folder, keeping per trial only where its events are (not the events).
 * A retried trial (events again from step 0) keeps its last attempt. Damaged lines and a torn last line are left out
 * with a warning; nothing in a log makes this throw but a log that cannot be read at all.
 */
export async function indexWorkerLogs(stagingDir: string, options: IndexOptions): Promise<LogIndex> {
  const index: LogIndex = { trials: new Map(), benchmarks: new Map(), warnings: [] }
  for (const log of await workerLogPaths(stagingDir)) {
    try {
      await indexLog(log, options, index)
    } catch (e) {
      index.warnings.push(
        `logs/${basename(log)}: cannot be read (${errorMessage(e)}); its trials are left out`,
      )
    }
  }
  return index
}

async function indexLog(log: string, options: IndexOptions, index: LogIndex): Promise<void> {
  const name = `logs/${basename(log)}`
  const handle = await open(log, 'r')
  try {
    let position = 0
    let lineNo = 0
    let carry = Buffer.alloc(0)
    for (;;) {
      const buffer = Buffer.allocUnsafe(carry.length + CHUNK)
      carry.copy(buffer)
      const { bytesRead } = await handle.read(buffer, carry.length, CHUNK, position + carry.length)
      const end = carry.length + bytesRead
      let start = 0
      for (;;) {
        const newline = buffer.indexOf(NEWLINE, start)
        if (newline < 0 || newline >= end) break
        lineNo++
        if (newline > start) {
          const text = buffer.toString('utf8', start, newline)
          indexLine(text, position + start, position + newline + 1, log, `${name}:${lineNo}`, options, index)
        }
        start = newline + 1
      }
      if (bytesRead === 0) {
        if (end > start) index.warnings.push(`${name}: dropped a torn last line (the run died mid-write)`)
        return
      }
      position += start
      carry = Buffer.from(buffer.subarray(start, end))
    }
  } finally {
    await handle.close()
  }
}

function indexLine(
  text: string,
  start: number,
  end: number,
  log: string,
  where: string,
  options: IndexOptions,
  index: LogIndex,
): void {
  if (options.records === 'skip' && text.startsWith(RECORD_PREFIX)) return
  let line: unknown
  try {
    line = JSON.parse(text)
  } catch {
    index.warnings.push(`${where}: not JSON, left out (a damaged line)`)
    return
  }
  if (typeof line !== 'object' || line === null) {
    index.warnings.push(`${where}: not a worker log line, left out`)
    return
  }
  const value = line as Record<string, unknown>
  if ('event' in value) return indexEvent(value['event'], start, end, where, index, log)
  if ('record' in value) return indexRecord(value['record'], where, options, index)
  if ('benchmark' in value) {
    const parsed = StagedBenchmark.safeParse(value['benchmark'])
    if (parsed.success) index.benchmarks.set(parsed.data.benchmark.id, parsed.data)
    else index.warnings.push(`${where}: not a benchmark line (${parsed.error.issues[0]?.message}), left out`)
    return
  }
  index.warnings.push(`${where}: not a worker log line, left out`)
}

function indexEvent(
  event: unknown,
  start: number,
  end: number,
  where: string,
  index: LogIndex,
  log: string,
): void {
  const e = event as { benchmark?: unknown; taskId?: unknown; trial?: unknown; step?: unknown } | null
  if (
    typeof e !== 'object' ||
    e === null ||
    typeof e.benchmark !== 'string' ||
    typeof e.taskId !== 'string' ||
    typeof e.trial !== 'number' ||
    typeof e.step !== 'number'
  ) {
    index.warnings.push(`${where}: an event that names no benchmark, task, trial and step, left out`)
    return
  }
  const key = trialKey(e.benchmark, e.taskId, e.trial)
  let trial = index.trials.get(key)
  // Step 0 again: the case ran the trial again (a Vitest retry); the last attempt is the trial.
  if (!trial || e.step === 0) {
    trial = {
      benchmark: e.benchmark,
      taskId: e.taskId,
      trial: e.trial,
      trace: { log, ranges: [] },
      events: 0,
    }
    index.trials.set(key, trial)
  }
  const ranges = trial.trace.ranges
  if (ranges.length > 0 && ranges[ranges.length - 1] === start) ranges[ranges.length - 1] = end
  else ranges.push(start, end)
  trial.events++
}

function indexRecord(record: unknown, where: string, options: IndexOptions, index: LogIndex): void {
  let parsed: TrialRecord
  if (options.records === 'validate') {
    const result = TrialRecord.safeParse(record)
    if (!result.success) {
      index.warnings.push(`${where}: not a trial record; its trial counts as unfinished`)
      return
    }
    parsed = result.data
  } else parsed = record as TrialRecord
  const key = trialKey(parsed.benchmark.id, parsed.taskId, parsed.trial)
  const trial = index.trials.get(key)
  if (trial) trial.record = parsed
  else
    // A trial taken over whole may have written no event (never: the engine copies them), or its events are in
    // another worker's log; the record stands on its own.
    index.trials.set(key, {
      benchmark: parsed.benchmark.id,
      taskId: parsed.taskId,
      trial: parsed.trial,
      trace: { log: '', ranges: [] },
      events: 0,
      record: parsed,
    })
}

const EVENT_PREFIX = '{"event":'

/**
 * A trial's events as JSONL text (one event object a line, unwrapped from its `{"event":…}` line), read by range.
 * `handle` is the open log, when the caller reads many trials of it.
 */
export async function readLoggedTrace(trace: LoggedTrace, handle?: FileHandle): Promise<string> {
  if (trace.ranges.length === 0) return ''
  const own = handle ?? (await open(trace.log, 'r'))
  try {
    const parts: string[] = []
    for (let i = 0; i < trace.ranges.length; i += 2) {
      const start = trace.ranges[i]!
      const length = trace.ranges[i + 1]! - start
      const buffer = Buffer.allocUnsafe(length)
      let read = 0
      while (read < length) {
        const { bytesRead } = await own.read(buffer, read, length - read, start + read)
        if (bytesRead === 0) throw new Error(`${trace.log} is shorter than when it was indexed`)
        read += bytesRead
      }
      parts.push(buffer.toString('utf8'))
    }
    return unwrapEvents(parts.join(''))
  } finally {
    if (!handle) await own.close()
  }
}

/** Event lines as our writer wrote them are unwrapped by slicing; anything else goes through JSON. */
function unwrapEvents(text: string): string {
  let out = ''
  let start = 0
  while (start < text.length) {
    const end = text.indexOf('\n', start)
    const line = text.slice(start, end < 0 ? text.length : end)
    start = end < 0 ? text.length : end + 1
    if (line === '') continue
    const inner =
      line.startsWith(EVENT_PREFIX) && line.endsWith('}')
        ? line.slice(EVENT_PREFIX.length, -1)
        : JSON.stringify((JSON.parse(line) as { event: unknown }).event)
    out += `${inner}\n`
  }
  return out
}
