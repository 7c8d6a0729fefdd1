import { readFile } from 'node:fs/promises'
import type { TraceEvent } from '../core/index.ts'

/**
 * Where a bundle's events come from, in bundle order (each trial's events together, steps ascending). Every
 * variant is consumed as a stream of batches, so a run's traces never have to fit in memory at once.
 */
export type TraceSource =
  /**
   * JSONL files (typically one per trial), concatenated in the order given. `readTraceFile` lets a caller that
   * already read some of them (the reporter reads each trial's file as it finishes) hand the text over.
   */
  | { traceFiles: readonly string[]; readTraceFile?: (path: string) => Promise<string> }
  /** JSONL lines. */
  | { traceLines: Iterable<string> | AsyncIterable<string> }
  /** Event objects. */
  | { traceEvents: Iterable<TraceEvent> | AsyncIterable<TraceEvent> }

/** One item of a trace source: raw JSON text or an object, with where it came from for error messages. */
export type TraceItem = { where: string; text: string } | { where: string; value: unknown }

/** Trial files read ahead of the one being merged: enough to keep the thread pool busy, few enough to stay small. */
const READ_AHEAD = 16

/**
 * Yields the source in batches (one per trace file) rather than item by item: a run has thousands of small trial
 * files, and a promise round trip per line would cost more than the parsing.
 */
export async function* traceBatches(source: TraceSource): AsyncGenerator<TraceItem[]> {
  if ('traceFiles' in source) {
    const files = source.traceFiles
    const read = source.readTraceFile ?? ((path: string) => readFile(path, 'utf8'))
    const reads = new Map<number, Promise<string>>()
    const startRead = (i: number) => {
      const text = read(files[i]!)
      // Read-ahead may fail before its turn comes; the error surfaces when that file is awaited below.
      text.catch(() => undefined)
      reads.set(i, text)
    }
    for (let i = 0; i < Math.min(READ_AHEAD, files.length); i++) startRead(i)
    for (let i = 0; i < files.length; i++) {
      const text = await reads.get(i)!
      reads.delete(i)
      if (i + READ_AHEAD < files.length) startRead(i + READ_AHEAD)
      yield splitLines(text).map((line, n) => ({ where: `${files[i]}:${n + 1}`, text: line }))
    }
  } else if ('traceLines' in source) {
    let n = 0
    for await (const text of source.traceLines) yield [{ where: `line ${++n}`, text }]
  } else {
    let n = 0
    for await (const value of source.traceEvents) yield [{ where: `event ${++n}`, value }]
  }
}

/** The final line needs no trailing newline. */
function splitLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}
