import type { TraceEvent } from '../core/index.ts'
import { readLines } from './lines.ts'

/**
 * Where a bundle's events come from, in bundle order (each trial's events together, steps ascending). Every
 * variant is consumed as a stream, so a run's traces never have to fit in memory at once.
 */
export type TraceSource =
  /** JSONL files (typically one per trial), concatenated in the order given. */
  | { traceFiles: readonly string[] }
  /** JSONL lines. */
  | { traceLines: Iterable<string> | AsyncIterable<string> }
  /** Event objects. */
  | { traceEvents: Iterable<TraceEvent> | AsyncIterable<TraceEvent> }

/** One item of a trace source: raw JSON text or an object, with where it came from for error messages. */
export type TraceItem = { where: string; text: string } | { where: string; value: unknown }

export async function* traceItems(source: TraceSource): AsyncGenerator<TraceItem> {
  if ('traceFiles' in source) {
    for (const path of source.traceFiles) {
      let n = 0
      for await (const text of readLines(path)) yield { where: `${path}:${++n}`, text }
    }
  } else if ('traceLines' in source) {
    let n = 0
    for await (const text of source.traceLines) yield { where: `line ${++n}`, text }
  } else {
    let n = 0
    for await (const value of source.traceEvents) yield { where: `event ${++n}`, value }
  }
}
