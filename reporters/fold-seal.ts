import { join } from 'node:path'
import {
  DurableFileWriter,
  formatFindings,
  ScoresJsonWriter,
  TRACES_FILE,
  SCORES_FILE,
  type Finding,
  type PrewrittenFile,
} from '../src/bundles/index.ts'
import { AgentEvalOpsError, type RunSummary, type SealedSummary } from '../src/core/index.ts'
import { eventsRange, partRange, recordRange, type FoldedTrial, type RunFold } from './run-fold.ts'
import type { SealTally } from './seal-tally.ts'
import { readSpilledRecord } from './spilled-record.ts'

/** Trials read back at a time: their ranges coalesce into few reads, and a batch's buffers stay a few MB. */
const SEAL_BATCH = 512

/** A part's file in bundle order, written and open: its taker ends it (close: fsynced, with its digest). */
export interface SortedPart {
  path: string
  writer: DurableFileWriter
}

export interface SortedParts {
  /** traces.jsonl in bundle order, copied from the folded traces. */
  traces: PrewrittenFile
  /** Each part's file (RunFold's parts, in their order) with the texts of the bundle's trials, in bundle order. */
  parts: SortedPart[]
  /** Ends scores.json (whose trials are written) with the run's summary. */
  finishScores(summary: RunSummary | SealedSummary): Promise<PrewrittenFile>
  /** Drops the unfinished scores.json (the bundle will not be written). */
  abandon(): Promise<void>
}

/**
 * One pass over the folded trials in bundle order (benchmark, task, trial: the fold index's sorted()): traces.jsonl from their events' byte
 * ranges, scores.json's trials from their spilled entries, each part's file from its texts, and each record handed
 * to `tally` (the statistics, the metadata's lists, the reports' figures). All land in the fold folder, for
 * sealBundle to move or copy into the bundle; memory holds one batch of trials' bytes at a time.
 */
export async function writeSortedParts(
  fold: RunFold,
  sorted: Iterable<FoldedTrial>,
  partFiles: readonly string[],
  tally: Pick<SealTally, 'addSpilled'>,
): Promise<SortedParts> {
  const tracesPath = join(fold.dir, TRACES_FILE)
  const scoresPath = join(fold.dir, SCORES_FILE)
  const partPaths = partFiles.map((file) => join(fold.dir, `sorted.${file}`))
  const traces = await DurableFileWriter.create(tracesPath)
  const writers: DurableFileWriter[] = [traces]
  const scores = await ScoresJsonWriter.create(scoresPath).catch(async (e: unknown) => {
    await traces.abandon()
    throw e
  })
  let tracesDigest
  try {
    for (const path of partPaths) writers.push(await DurableFileWriter.create(path))
    const parts = writers.slice(1)
    for (const batch of batches(sorted, SEAL_BATCH)) {
      const events = fold.readMany('events', batch.map(eventsRange))
      const records = fold.readMany('records', batch.map(recordRange))
      const texts = parts.map((_, i) =>
        fold.readMany(
          i,
          batch.map((t) => partRange(t, i)),
        ),
      )
      for (let t = 0; t < batch.length; t++) {
        await traces.write(events[t]!)
        const spilled = readSpilledRecord(records[t]!)
        await scores.entry(spilled.entry)
        tally.addSpilled(spilled)
        for (let i = 0; i < parts.length; i++) await parts[i]!.write(texts[i]![t]!)
      }
    }
    tracesDigest = await traces.close()
    for (const part of parts) await part.flush()
  } catch (e) {
    await Promise.all([...writers.map((w) => w.abandon()), scores.abandon()])
    throw e
  }
  return {
    traces: { sourcePath: tracesPath, digest: tracesDigest },
    parts: partPaths.map((path, i) => ({ path, writer: writers[i + 1]! })),
    finishScores: async (summary) => ({ sourcePath: scoresPath, digest: await scores.finish(summary) }),
    abandon: async () => {
      await Promise.all([...writers.slice(1).map((w) => w.abandon()), scores.abandon()])
    },
  }
}

/** As writeBundle says it of traces it checks: the folded events were checked as they streamed. */
export function invalidTraces(findings: readonly Finding[]): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'BUNDLE_INVALID',
    `the run's traces are invalid, so no bundle was written (the source trace files are untouched):\n` +
      formatFindings(findings),
  )
}

function* batches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = []
  for (const item of items) {
    batch.push(item)
    if (batch.length === size) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}
