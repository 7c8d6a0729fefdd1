import { mkdir, open, type FileHandle } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { FindingList } from '../src/bundles/findings.ts'
import { TraceChecker } from '../src/bundles/trace-checks.ts'
import { TRIAL_OUTCOMES, type TraceEvent, type TrialRecord } from '../src/core/index.ts'
import { LogTail, workerLogPaths } from '../src/stores/index.ts'
import { FoldIndex, type IndexedTrial } from './fold-index.ts'
import { readRanges, type ByteRange } from './range-reads.ts'
import { spilledRecordText } from './spilled-record.ts'

/** The folder of the run's staging folder where the bundle's big files grow, beside the worker logs they come from. */
export const FOLD_DIR = 'fold'
/** Each folded trial's events, a trial's together, in fold order: traces.jsonl is copied from it in bundle order. */
export const FOLDED_TRACES_FILE = 'traces.unsorted.jsonl'
/**
 * Each folded trial's slim form and scores.json entry (spilled-record.ts), in fold order: scores.json is streamed
 * from it in bundle order.
 */
export const SPILLED_RECORDS_FILE = 'records.jsonl'

export type { ByteRange }

/**
 * What the fold keeps of a trial: where its record, its events and its parts' texts are in the fold's files, and
 * the few facts the end needs before it reads them back, in the fold's index (on disk, not in memory). The
 * statistics' fields are not kept: the seal reads every record once, in bundle order, and makes them there.
 */
export type FoldedTrial = IndexedTrial

/** Where a folded trial's record is in the spill. */
export function recordRange(t: FoldedTrial): ByteRange {
  return { offset: t.ranges[0]!, length: t.ranges[1]! }
}

/** Where a folded trial's events are in the folded traces. */
export function eventsRange(t: FoldedTrial): ByteRange {
  return { offset: t.ranges[2]!, length: t.ranges[3]! }
}

/** Where a folded trial's text is in the file of part `i`. */
export function partRange(t: FoldedTrial, i: number): ByteRange {
  return { offset: t.ranges[4 + 2 * i]!, length: t.ranges[5 + 2 * i]! }
}

/** A part's file, open for the fold's appends. */
interface PartFile {
  part: FoldedTrialPart
  handle: FileHandle
  size: number
}

/**
 * A file that grows with the run by a text per folded trial (spans.jsonl's lines, report.html's rows), made from the
 * trial's record and events while the run goes on. The fold keeps each trial's byte range of it, so the end copies
 * the texts of the trials the bundle holds, in bundle order: a trial folded twice or cut short leaves no trace in it.
 */
export interface FoldedTrialPart {
  /** Its file's name in the fold folder. */
  file: string
  /** The trial's text: whole lines, each ending in a newline. */
  text(record: TrialRecord, events: readonly TraceEvent[]): string
}

interface FollowedLog {
  tail: LogTail
  /** Events of the log's trials that have not finished yet, by trial key. */
  inFlight: Map<string, HeldEvents>
}

/** A running trial's events, each beside its JSON as the worker wrote it (traces.jsonl's line for it). */
interface HeldEvents {
  events: TraceEvent[]
  texts: string[]
}

/** The worker writes an event's line as this prefix, JSON.stringify of the event, and `}`. */
const EVENT_LINE_PREFIX = '{"event":'
const NO_EVENTS: HeldEvents = { events: [], texts: [] }

const OUTCOMES = new Set<unknown>(TRIAL_OUTCOMES)

/** How long a catch-up trusts the last listing of the logs folder (caughtUp() always lists it). */
const LIST_LOGS_EVERY_MS = 100

/**
 * Folds a live run's worker logs as they grow: each finished trial (its `record` line) leaves memory as its key and
 * byte ranges, its record appended to the spill and its events to the folded traces; only the events
 * of trials still running are held. Lines are our own worker's, so they are JSON.parse'd and checked for the shape
 * the fold needs, never validated with zod again. A trial reported twice (a retried case) is the last one folded.
 */
export class RunFold {
  /** The folded trials by benchmark, task and trial: a trial is in the bundle once. */
  readonly index: FoldIndex
  /** Record lines that were no trial record, said once each when the run ends. */
  readonly problems: string[] = []
  private readonly logs = new Map<string, FollowedLog>()
  private spillSize = 0
  private tracesSize = 0
  private chain: Promise<void> = Promise.resolve()
  private waiting = false
  private listedAt = -Infinity
  private failure: { error: unknown } | undefined

  private constructor(
    private readonly stagingDir: string,
    readonly runId: string,
    readonly dir: string,
    private readonly spill: FileHandle,
    private readonly traces: FileHandle,
    private readonly parts: readonly PartFile[],
  ) {
    this.index = new FoldIndex(dir)
  }

  static async open(
    stagingDir: string,
    runId: string,
    parts: readonly FoldedTrialPart[] = [],
  ): Promise<RunFold> {
    const dir = join(stagingDir, FOLD_DIR)
    await mkdir(dir, { recursive: true })
    // Not fsynced: everything in them is in the durable worker logs, which recover reads.
    const names = [SPILLED_RECORDS_FILE, FOLDED_TRACES_FILE, ...parts.map((p) => p.file)]
    const opened = await Promise.allSettled(names.map((name) => open(join(dir, name), 'w+')))
    const handles = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
    const failed = opened.find((o) => o.status === 'rejected')
    if (failed) {
      await Promise.allSettled(handles.map((h) => h.close()))
      throw failed.reason
    }
    const [spill, traces, ...partHandles] = handles as [FileHandle, FileHandle, ...FileHandle[]]
    const files = parts.map((part, i) => ({ part, handle: partHandles[i]!, size: 0 }))
    return new RunFold(stagingDir, runId, dir, spill, traces, files)
  }

  /** Folds what the logs gained since the last time, unless a catch-up is already waiting to start. */
  poke(all = false): void {
    if (this.waiting) return
    this.waiting = true
    this.chain = this.chain.then(async () => {
      this.waiting = false
      if (this.failure) return
      try {
        await this.catchUp(all)
      } catch (error) {
        this.failure = { error }
      }
    })
  }

  /** Every line the logs held when called is folded; throws what went wrong with reading or writing them. */
  async caughtUp(): Promise<void> {
    this.waiting = false
    this.poke(true)
    await this.chain
    if (this.failure) throw this.failure.error
  }

  /** Reads each of `ranges` of the spill, the folded traces, or the part of that index, in few reads. */
  readMany(file: 'records' | 'events' | number, ranges: readonly ByteRange[]): Buffer[] {
    const handle =
      file === 'records' ? this.spill : file === 'events' ? this.traces : this.parts[file]!.handle
    return readRanges(handle.fd, ranges, `${file} of the fold`)
  }

  async close(): Promise<void> {
    await this.chain
    await Promise.allSettled(
      [this.spill, this.traces, ...this.parts.map((p) => p.handle)].map((h) => h.close()),
    )
    await Promise.allSettled([...this.logs.values()].map((log) => log.tail.close()))
  }

  /**
   * Folds a finished trial handed over whole, not read from a worker log (a monitor window's scored trace): the same
   * files and bookkeeping as a logged one. Serialised with the fold's other writes.
   */
  add(record: TrialRecord, events: readonly TraceEvent[]): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.failure) throw this.failure.error
      const texts = events.map((e) => JSON.stringify(e))
      const folded = this.foldTrial(record, events, texts, 'monitor')
      await this.spill.writeFile(folded.record)
      await this.traces.writeFile(folded.events)
      for (const [i, part] of this.parts.entries()) await part.handle.writeFile(folded.parts[i]!)
    })
    this.chain = next.catch((error: unknown) => {
      this.failure ??= { error }
    })
    return next
  }

  private async catchUp(all = false): Promise<void> {
    // A new worker's log appears rarely, catch-ups come as often as cases end: the folder is listed again only
    // after a pause, and always for caughtUp().
    if (all || performance.now() - this.listedAt >= LIST_LOGS_EVERY_MS) {
      this.listedAt = performance.now()
      for (const path of await workerLogPaths(this.stagingDir)) {
        if (!this.logs.has(path)) this.logs.set(path, { tail: new LogTail(path), inFlight: new Map() })
      }
    }
    // Text, turned into bytes once per catch-up: a Buffer per trial costs more than the trial's bookkeeping.
    const records: string[] = []
    const events: string[] = []
    const texts: string[][] = this.parts.map(() => [])
    for (const [path, log] of this.logs) {
      const { lines, texts: lineTexts } = await log.tail.readWithText()
      for (const [i, line] of lines.entries()) {
        if ('event' in line)
          this.hold(log, line.event, wrappedText(lineTexts[i]!, EVENT_LINE_PREFIX, line.event))
        else if ('record' in line) {
          const folded = this.fold(log, line.record, basename(path))
          if (folded) {
            records.push(folded.record)
            events.push(folded.events)
            folded.parts.forEach((text, i) => texts[i]!.push(text))
          }
        } else if (!('benchmark' in line)) this.problems.push(`${basename(path)}: a line of no known kind`)
      }
    }
    if (records.length > 0) await this.spill.writeFile(records.join(''))
    if (events.length > 0) await this.traces.writeFile(events.join(''))
    for (const [i, part] of this.parts.entries()) {
      if (texts[i]!.length > 0) await part.handle.writeFile(texts[i]!.join(''))
    }
  }

  private hold(log: FollowedLog, event: TraceEvent, text: string): void {
    const key = trialKey(event.benchmark ?? '', event.taskId, event.trial)
    const held = log.inFlight.get(key)
    if (held) {
      held.events.push(event)
      held.texts.push(text)
    } else log.inFlight.set(key, { events: [event], texts: [text] })
  }

  private fold(
    log: FollowedLog,
    record: TrialRecord,
    where: string,
  ): { record: string; events: string; parts: string[] } | undefined {
    const problem = recordProblem(record)
    if (problem !== null) {
      this.problems.push(`${where}: a trial record that is not one (${problem})`)
      return undefined
    }
    const key = trialKey(record.benchmark.id, record.taskId, record.trial)
    // Events of a format that did not name their benchmark are keyed without it.
    const unnamed = trialKey('', record.taskId, record.trial)
    const held = log.inFlight.get(key) ?? log.inFlight.get(unnamed) ?? NO_EVENTS
    log.inFlight.delete(key)
    log.inFlight.delete(unnamed)
    return this.foldTrial(record, held.events, held.texts, where)
  }

  /** A trial's record and events (each with its JSON) into the fold's files' texts and its slim bookkeeping. */
  private foldTrial(
    record: TrialRecord,
    events: readonly TraceEvent[],
    eventTexts: readonly string[],
    where: string,
  ): { record: string; events: string; parts: string[] } {
    const findings = new FindingList()
    const checker = new TraceChecker(this.runId, findings, [
      { benchmark: record.benchmark.id, taskId: record.taskId, trial: record.trial },
    ])
    let text = ''
    events.forEach((event, i) => {
      checker.add(event, `${where}: event ${i + 1} of task ${record.taskId} trial ${record.trial}`)
      text += `${eventTexts[i]!}\n`
    })
    checker.finish()
    const recordText = spilledRecordText(record)
    const recordBytes = Buffer.byteLength(recordText)
    const eventBytes = Buffer.byteLength(text)
    const parts = this.parts.map((p) => p.part.text(record, events))
    // Of its final length: an array grown by push keeps room for more, which a 100,000-trial run pays for.
    const ranges = new Array<number>(4 + 2 * parts.length)
    ranges[0] = this.spillSize
    ranges[1] = recordBytes
    ranges[2] = this.tracesSize
    ranges[3] = eventBytes
    parts.forEach((partText, i) => {
      const file = this.parts[i]!
      const length = Buffer.byteLength(partText)
      ranges[4 + 2 * i] = file.size
      ranges[5 + 2 * i] = length
      file.size += length
    })
    const folded: FoldedTrial = {
      benchmarkId: record.benchmark.id,
      taskId: record.taskId,
      trial: record.trial,
      ranges,
      interrupted: record.outcome === 'interrupted',
    }
    this.spillSize += recordBytes
    this.tracesSize += eventBytes
    this.index.add(folded, findings.size > 0 ? findings.toArray() : [])
    return { record: recordText, events: text, parts }
  }
}

/**
 * An event's JSON for the fold's files: the text the worker wrote inside its `{"event":…}` line, which is
 * JSON.stringify of the value, so re-stringifying the parsed value gives the same bytes at a second cost. A line
 * that is not of that form is stringified as before.
 */
function wrappedText(lineText: string, prefix: string, value: unknown): string {
  return lineText.startsWith(prefix) && lineText.endsWith('}')
    ? lineText.slice(prefix.length, -1)
    : JSON.stringify(value)
}

export function trialKey(benchmark: string, taskId: string, trial: number): string {
  return `${benchmark}\u0000${taskId}\u0000${trial}`
}

/**
 * Whether a log's record has the shape the fold and the bundle rely on: a check of our own worker's output against
 * a bug or a damaged disk, not a validation (that happened where the data came from code we do not own).
 */
function recordProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'not an object'
  const r = value as Partial<Record<keyof TrialRecord, unknown>>
  const benchmark = r.benchmark as { id?: unknown } | null | undefined
  if (typeof benchmark !== 'object' || benchmark === null || typeof benchmark.id !== 'string')
    return 'no benchmark id'
  if (typeof r.taskId !== 'string' || r.taskId === '') return 'no task id'
  if (typeof r.trial !== 'number' || !Number.isInteger(r.trial) || r.trial < 0) return 'no trial number'
  if (typeof r.runId !== 'string') return 'no run id'
  if (!OUTCOMES.has(r.outcome) || typeof r.passed !== 'boolean') return 'no outcome'
  if (!Array.isArray(r.scores) || !Array.isArray(r.verdicts)) return 'no scores or verdicts'
  const usage = r.usage as Record<string, unknown> | null | undefined
  if (typeof usage !== 'object' || usage === null || typeof usage['tokens'] !== 'number') return 'no usage'
  if (typeof r.runner !== 'object' || r.runner === null) return 'no runner'
  return null
}
