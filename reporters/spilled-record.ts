import { scoresJsonEntry } from '../src/bundles/index.ts'
import type { TrialRecord } from '../src/core/index.ts'
import { ReportTrials } from '../src/reports/sections/trials.ts'
import { slimTrial, type SlimTrial } from './slim-trial.ts'

/** The first line of a trial's text in the spill. */
interface SpilledHead {
  slim: SlimTrial
  /** Whether report.md makes a row of the trial (so the seal needs its whole record). */
  rows: boolean
}

/**
 * A folded trial's text in the spill, made as it finishes (while the main process waits on the workers): a line of
 * its slim form, then its scores.json entry. The seal copies the entry and parses only the slim line, and the
 * whole record only for a trial report.md shows a row of.
 */
export function spilledRecordText(record: TrialRecord): string {
  const head: SpilledHead = { slim: slimTrial(record), rows: ReportTrials.showsRows(record) }
  return `${JSON.stringify(head)}\n${scoresJsonEntry(record)}\n`
}

export interface SpilledRecord {
  slim: SlimTrial
  rows: boolean
  /** The trial's scores.json entry, as scoresJsonEntry wrote it. */
  entry: Buffer
  /** The whole record, parsed from the entry (which leaves out the phase timing, which no report reads). */
  record(): TrialRecord
}

export function readSpilledRecord(bytes: Buffer): SpilledRecord {
  const cut = bytes.indexOf(0x0a)
  const head = JSON.parse(bytes.toString('utf8', 0, cut)) as SpilledHead
  const entry = bytes.subarray(cut + 1, bytes.length - 1)
  return {
    slim: head.slim,
    rows: head.rows,
    entry,
    record: () => ({ ...(JSON.parse(entry.toString('utf8')) as TrialRecord), runId: head.slim.runId }),
  }
}
