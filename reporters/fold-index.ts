import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Finding } from '../src/bundles/findings.ts'
import { linesOf } from './line-blocks.ts'

/** A folded trial's key and where its texts are, as the index keeps it: FoldedTrial without its findings. */
export interface IndexedTrial {
  benchmarkId: string
  taskId: string
  trial: number
  /** Offset and length of its record, its events, then its text in each part's file, flat (see RunFold). */
  ranges: number[]
  interrupted: boolean
}

/** Entries held before they are sorted into a run file: what memory holds of the index, whatever the run's size. */
const RUN_ENTRIES = 2048
/** Run files merged at once; more are merged into fewer first, so a run of millions opens a bounded number. */
const FAN_IN = 64

interface Entry extends IndexedTrial {
  /** The order it was folded in: of a trial folded twice, the last fold is the one kept. */
  seq: number
}

/**
 * The fold's index of its trials, in bundle order (benchmark, task, trial) on demand, without holding a key per
 * trial: entries are gathered a few thousand at a time, sorted, and written out as a run file; `sorted()` merges
 * the runs. A trial folded twice (a retried case) is the last one folded. Trace findings, rare, are held by key.
 */
export class FoldIndex {
  private buffer: Entry[] = []
  private readonly runs: string[] = []
  private seq = 0
  private nextRun = 0
  private leaveInterrupted = false
  /** The latest fold's findings of each trial that had any (and whether that fold was interrupted). */
  private readonly findings = new Map<string, { findings: Finding[]; interrupted: boolean }>()

  private readonly runEntries: number
  private readonly fanIn: number

  constructor(
    private readonly dir: string,
    sizes: { runEntries?: number; fanIn?: number } = {},
  ) {
    this.runEntries = sizes.runEntries ?? RUN_ENTRIES
    this.fanIn = Math.max(2, sizes.fanIn ?? FAN_IN)
  }

  add(trial: IndexedTrial, findings: readonly Finding[]): void {
    const key = keyOf(trial)
    if (findings.length > 0)
      this.findings.set(key, { findings: [...findings], interrupted: trial.interrupted })
    else this.findings.delete(key)
    this.buffer.push({ ...trial, seq: this.seq++ })
    if (this.buffer.length >= this.runEntries) this.spill()
  }

  /** From now on sorted() and counts() leave out the trials whose kept fold was cut short by an interrupt. */
  dropInterrupted(): void {
    this.leaveInterrupted = true
  }

  /** The findings of the trials sorted() gives. */
  traceFindings(): Finding[] {
    return [...this.findings.values()].flatMap((f) =>
      this.leaveInterrupted && f.interrupted ? [] : f.findings,
    )
  }

  /** Every trial once, in bundle order; interrupted ones too unless dropInterrupted was called. */
  *sorted(): Generator<IndexedTrial> {
    for (const trial of this.deduped()) if (!(this.leaveInterrupted && trial.interrupted)) yield trial
  }

  /** How many trials were folded (a trial folded twice once), and how many of those were cut short. */
  counts(): { trials: number; interrupted: number } {
    let trials = 0
    let interrupted = 0
    for (const t of this.deduped()) {
      trials++
      if (t.interrupted) interrupted++
    }
    return { trials, interrupted }
  }

  /** Which of `keys` (trialKey's) sorted() gives. */
  present(keys: ReadonlySet<string>): Set<string> {
    const found = new Set<string>()
    if (keys.size === 0) return found
    for (const t of this.sorted()) {
      const key = keyOf(t)
      if (keys.has(key)) found.add(key)
    }
    return found
  }

  /** Removes the run files (the fold folder goes with the run; this is for an index dropped before). */
  remove(): void {
    for (const run of this.runs.splice(0)) rmSync(run, { force: true })
    this.buffer = []
  }

  /** Every trial's last fold, in bundle order. */
  private *deduped(): Generator<IndexedTrial> {
    this.spill()
    while (this.runs.length > this.fanIn) this.mergeRuns(this.runs.splice(0, this.fanIn))
    let held: Entry | undefined
    for (const entry of merged(this.runs)) {
      if (held && !sameTrial(held, entry)) yield trialOf(held)
      held = entry
    }
    if (held) yield trialOf(held)
  }

  private spill(): void {
    if (this.buffer.length === 0) return
    this.buffer.sort(compareEntries)
    this.writeRun(this.buffer)
    this.buffer = []
  }

  private writeRun(entries: Iterable<Entry>): void {
    const path = join(this.dir, `index-${this.nextRun++}.jsonl`)
    const fd = openSync(path, 'w')
    try {
      let text = ''
      for (const e of entries) {
        text += `${JSON.stringify([e.benchmarkId, e.taskId, e.trial, e.seq, e.interrupted ? 1 : 0, ...e.ranges])}\n`
        if (text.length >= 64 * 1024) {
          writeSync(fd, text)
          text = ''
        }
      }
      if (text !== '') writeSync(fd, text)
    } finally {
      closeSync(fd)
    }
    this.runs.push(path)
  }

  private mergeRuns(runs: readonly string[]): void {
    this.writeRun(merged(runs))
    for (const run of runs) rmSync(run, { force: true })
  }
}

/** The trialKey of a trial: benchmark, task and trial, NUL-separated. */
function keyOf(t: Pick<IndexedTrial, 'benchmarkId' | 'taskId' | 'trial'>): string {
  return `${t.benchmarkId}\u0000${t.taskId}\u0000${t.trial}`
}

function trialOf({ seq: _seq, ...trial }: Entry): IndexedTrial {
  return trial
}

function sameTrial(a: Entry, b: Entry): boolean {
  return a.benchmarkId === b.benchmarkId && a.taskId === b.taskId && a.trial === b.trial
}

/** Bundle order, then fold order. */
function compareEntries(a: Entry, b: Entry): number {
  return (
    compareText(a.benchmarkId, b.benchmarkId) ||
    compareText(a.taskId, b.taskId) ||
    a.trial - b.trial ||
    a.seq - b.seq
  )
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The entries of sorted run files, merged into one sorted sequence (a binary heap of one cursor per file). */
function* merged(runs: readonly string[]): Generator<Entry> {
  const fds = runs.map((run) => openSync(run, 'r'))
  try {
    const cursors = fds.map((fd) => entriesOf(fd))
    const heap: { entry: Entry; cursor: Generator<Entry> }[] = []
    for (const cursor of cursors) {
      const next = cursor.next()
      if (!next.done) heapPush(heap, { entry: next.value, cursor })
    }
    while (heap.length > 0) {
      const top = heap[0]!
      yield top.entry
      const next = top.cursor.next()
      if (next.done) {
        const last = heap.pop()!
        if (heap.length > 0) {
          heap[0] = last
          siftDown(heap, 0)
        }
      } else {
        top.entry = next.value
        siftDown(heap, 0)
      }
    }
  } finally {
    for (const fd of fds) closeSync(fd)
  }
}

function* entriesOf(fd: number): Generator<Entry> {
  const lines = linesOf(fd)
  for (let next = lines.next(); !next.done; next = lines.next()) {
    const [benchmarkId, taskId, trial, seq, interrupted, ...ranges] = JSON.parse(next.value) as [
      string,
      string,
      number,
      number,
      number,
      ...number[],
    ]
    yield { benchmarkId, taskId, trial, seq, interrupted: interrupted === 1, ranges }
  }
}

type HeapItem = { entry: Entry }

function heapPush<T extends HeapItem>(heap: T[], item: T): void {
  heap.push(item)
  let i = heap.length - 1
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (compareEntries(heap[parent]!.entry, heap[i]!.entry) <= 0) break
    ;[heap[parent], heap[i]] = [heap[i]!, heap[parent]!]
    i = parent
  }
}

function siftDown<T extends HeapItem>(heap: T[], start: number): void {
  let i = start
  for (;;) {
    const left = 2 * i + 1
    const right = left + 1
    let least = i
    if (left < heap.length && compareEntries(heap[left]!.entry, heap[least]!.entry) < 0) least = left
    if (right < heap.length && compareEntries(heap[right]!.entry, heap[least]!.entry) < 0) least = right
    if (least === i) return
    ;[heap[least], heap[i]] = [heap[i]!, heap[least]!]
    i = least
  }
}
