import { join } from 'node:path'
import {
  DurableFileWriter,
  ScoresJsonWriter,
  TRACES_FILE,
  SCORES_FILE,
  type PrewrittenFile,
} from '../src/bundles/index.ts'
import type { RunSummary, ScoredTrial, TraceEvent, TrialRecord } from '../src/core/index.ts'
import { reportTrial, type FoldedTrial, type RunFold } from './run-fold.ts'

export interface SortedParts {
  /** traces.jsonl in bundle order, copied from the folded traces. */
  traces: PrewrittenFile
  /** The trials for report.md, the summaries and the comparison: whole records where they show more than slim. */
  reportTrials: ScoredTrial[]
  /** Whole records and events, for the files still made from the whole run at its end (spans, report.html). */
  whole: { records: TrialRecord[]; events: TraceEvent[] } | undefined
  /** Ends scores.json (whose trials are written) with the run's summary. */
  finishScores(summary: RunSummary): Promise<PrewrittenFile>
  /** Drops the unfinished scores.json (the bundle will not be written). */
  abandon(): Promise<void>
}

/**
 * One pass over the folded trials in bundle order (benchmark, task, trial): traces.jsonl from their events' byte
 * ranges, scores.json's trials from their spilled records. Both files land in the fold folder, for sealBundle to move
 * into the bundle. `whole` asks for every record and event in memory as well (the spans and report.html of today).
 */
export async function writeSortedParts(
  fold: RunFold,
  sorted: readonly FoldedTrial[],
  whole: boolean,
): Promise<SortedParts> {
  const tracesPath = join(fold.dir, TRACES_FILE)
  const scoresPath = join(fold.dir, SCORES_FILE)
  const traces = await DurableFileWriter.create(tracesPath)
  const scores = await ScoresJsonWriter.create(scoresPath).catch(async (e: unknown) => {
    await traces.abandon()
    throw e
  })
  const reportTrials: ScoredTrial[] = []
  const kept = whole ? { records: [] as TrialRecord[], events: [] as TraceEvent[] } : undefined
  let tracesDigest
  try {
    for (const trial of sorted) {
      const events = await fold.read('events', trial.events)
      await traces.write(events)
      const record = JSON.parse((await fold.read('records', trial.record)).toString('utf8')) as TrialRecord
      await scores.trial(record)
      reportTrials.push(trial.detailed ? record : reportTrial(trial.slim))
      if (kept) {
        kept.records.push(record)
        for (const line of events.toString('utf8').split('\n'))
          if (line !== '') kept.events.push(JSON.parse(line) as TraceEvent)
      }
    }
    tracesDigest = await traces.close()
  } catch (e) {
    await Promise.all([traces.abandon(), scores.abandon()])
    throw e
  }
  return {
    traces: { sourcePath: tracesPath, digest: tracesDigest },
    reportTrials,
    whole: kept,
    finishScores: async (summary) => ({ sourcePath: scoresPath, digest: await scores.finish(summary) }),
    abandon: () => scores.abandon(),
  }
}
