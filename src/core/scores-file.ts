import * as z from 'zod'
import { BUNDLE_FORMAT_VERSION, TrialRecord } from './schemas.ts'
import { RunSummary } from './summary.ts'

/**
 * A trial as scores.json keeps it: the record without its run id, which lives in metadata.json, and without its
 * phase timing, so that two runs that did the same thing write the same scores.json (wall-time figures apart).
 */
export const ScoredTrial = TrialRecord.omit({ runId: true, timing: true })
export type ScoredTrial = z.infer<typeof ScoredTrial>

export const ScoresFile = z.object({
  schemaVersion: z.literal(BUNDLE_FORMAT_VERSION),
  trials: z.array(ScoredTrial),
  summary: RunSummary,
})
export type ScoresFile = z.infer<typeof ScoresFile>

/** scores.json of format 2, which is format 3's: that format changed only the trace events. */
export const ScoresFileV2 = ScoresFile.extend({ schemaVersion: z.literal(2) })

/** scores.json of format 1: the run id at the top and in every trial, and counts-only statistics. */
export const ScoresFileV1 = z.object({
  schemaVersion: z.literal(1),
  runId: z.string().min(1),
  trials: z.array(TrialRecord),
  summary: z.looseObject({}),
})
export type ScoresFileV1 = z.infer<typeof ScoresFileV1>

/**
 * scores.json as a reader hands it over, whatever its format: `summary` is null for a format-1 file, whose
 * statistics are recomputed from its trials by whoever needs them.
 */
export interface ScoresRecords {
  schemaVersion: number
  /** Format 1 only: the run id scores.json then carried. */
  runId?: string
  trials: ScoredTrial[]
  summary: RunSummary | null
}
