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
import { AgentEvalOpsError, type RunSummary, type ScoredTrial, type TrialRecord } from '../src/core/index.ts'
import { ShownTrials } from '../src/reports/sections/trials.ts'
import { eventsRange, partRange, recordRange, type FoldedTrial, type RunFold } from './run-fold.ts'
import { reportTrial, SlimTrials, type SlimTrial } from './slim-trial.ts'

export interface SortedParts {
  /** traces.jsonl in bundle order, copied from the folded traces. */
  traces: PrewrittenFile
  /** Every trial's slim form, in bundle order: what the statistics, metadata and report.html's totals read. */
  slims: SlimTrial[]
  /**
   * The trials for report.md, the summaries and the comparison: whole records where report.md shows more of them
   * than the slim form holds, for as many trials as it shows row by row (however many failed).
   */
  reportTrials: ScoredTrial[]
  /** Each part's file (RunFold's parts, in their order) with the texts of the bundle's trials, in bundle order. */
  parts: string[]
  /** Ends scores.json (whose trials are written) with the run's summary. */
  finishScores(summary: RunSummary): Promise<PrewrittenFile>
  /** Drops the unfinished scores.json (the bundle will not be written). */
  abandon(): Promise<void>
}

/**
 * One pass over the folded trials in bundle order (benchmark, task, trial): traces.jsonl from their events' byte
 * ranges, scores.json's trials and their slim forms from their spilled records, each part's file from its texts.
 * All land in the fold folder, for sealBundle to move or copy into the bundle; memory holds one record at a time.
 */
export async function writeSortedParts(
  fold: RunFold,
  sorted: readonly FoldedTrial[],
  partFiles: readonly string[],
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
  const reportTrials: ScoredTrial[] = []
  const slims: SlimTrial[] = []
  const slimOf = new SlimTrials(fold.runId)
  const shown = new ShownTrials()
  let tracesDigest
  try {
    for (const path of partPaths) writers.push(await DurableFileWriter.create(path))
    const parts = writers.slice(1)
    for (const trial of sorted) {
      await traces.write(await fold.read('events', eventsRange(trial)))
      const record = JSON.parse(
        (await fold.read('records', recordRange(trial))).toString('utf8'),
      ) as TrialRecord
      await scores.trial(record)
      const slim = slimOf.of(record)
      slims.push(slim)
      if (!trial.detailed) reportTrials.push(reportTrial(slim))
      else reportTrials.push(shown.wants(record) ? record : countedOnly(slim, record))
      for (let i = 0; i < parts.length; i++) await parts[i]!.write(await fold.read(i, partRange(trial, i)))
    }
    tracesDigest = await traces.close()
    for (const part of parts) await part.close()
  } catch (e) {
    await Promise.all([...writers.map((w) => w.abandon()), scores.abandon()])
    throw e
  }
  return {
    traces: { sourcePath: tracesPath, digest: tracesDigest },
    slims,
    reportTrials,
    parts: partPaths,
    finishScores: async (summary) => ({ sourcePath: scoresPath, digest: await scores.finish(summary) }),
    abandon: () => scores.abandon(),
  }
}

/** A stand-in for findings report.md counts but does not show: only their number (not zero) is read. */
const COUNTED_FINDINGS = Object.freeze([
  Object.freeze({ type: 'counted', message: '', citations: Object.freeze([]) }),
]) as unknown as ScoredTrial['scores'][number]['findings']
const NO_CITATIONS: readonly number[] = Object.freeze([])

/**
 * A trial report.md only counts (past the rows it shows): its slim form, a score that gets a finding row with the
 * fields that row is drawn from standing in (findings as COUNTED_FINDINGS where it had some), so that the count of
 * finding rows stays that of its record. A 100,000-trial run whose agent fails everything then holds one small
 * object per trial, not its whole record.
 */
function countedOnly(slim: SlimTrial, record: TrialRecord): ScoredTrial {
  const trial = reportTrial(slim)
  const scores = trial.scores.map((s, i) => {
    const found = (record.scores[i]?.findings.length ?? 0) > 0
    if (s.error === null && s.passed && !found) return s
    return { ...s, explanation: '', citations: NO_CITATIONS, findings: found ? COUNTED_FINDINGS : s.findings }
  })
  return { ...trial, scores } as ScoredTrial
}

/** Bundle order: benchmark, task, trial. */
export function sortFolded(trials: readonly FoldedTrial[]): FoldedTrial[] {
  return [...trials].sort(
    (a, b) => cmp(a.benchmarkId, b.benchmarkId) || cmp(a.taskId, b.taskId) || a.trial - b.trial,
  )
}

/** As writeBundle says it of traces it checks: the folded events were checked as they streamed. */
export function invalidTraces(findings: readonly Finding[]): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'BUNDLE_INVALID',
    `the run's traces are invalid, so no bundle was written (the source trace files are untouched):\n` +
      formatFindings(findings),
  )
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
