import { z } from 'zod'
import { AggregatedScore, IndividualScore } from './monitor-wire.ts'

/*
 * The files monitor mode writes for itself (not the seed's formats): a batch that could not be published, kept for
 * `agentevalops monitor publish --from-file`, and the ledger of traces already scored. Both are read back from disk,
 * so both are parsed with zod where they come in.
 */

const isoTime = z.iso.datetime({ offset: true })

/** A score with its stable id (see MonitorScore in src/monitor/contract.ts). */
export const MonitorScoreRecord = z.object({
  id: z.string().min(1),
  identifier: z.string().min(1),
  spanId: z.string().min(1),
  individual: IndividualScore,
  costUsd: z.number().nonnegative(),
})

/** What one publish sends (MonitorScoreBatch in src/monitor/contract.ts). */
export const MonitorScoreBatchRecord = z.object({
  monitorId: z.string().min(1),
  runId: z.string().min(1),
  monitorName: z.string().min(1),
  window: z.object({ start: isoTime, end: isoTime }),
  scores: z.array(MonitorScoreRecord),
  aggregated: z.array(AggregatedScore),
})

export const UNPUBLISHED_FILE_VERSION = 1

/** `<output>/<runId>.unpublished.json`: a window's batch that a sink refused after its retries. */
export const UnpublishedBatchFile = z.object({
  version: z.literal(UNPUBLISHED_FILE_VERSION),
  writtenAt: isoTime,
  /** The sinks that failed, as they describe themselves, and why (never a secret). */
  failures: z.array(z.object({ sink: z.string(), error: z.string() })),
  /** The traces the batch scored: added to the ledger once the batch is sent. */
  traceIds: z.array(z.string().min(1)),
  /** The evaluators' fingerprint the traces were scored with (the ledger's key beside the trace id). */
  evaluatorsKey: z.string().min(1),
  batch: MonitorScoreBatchRecord,
})
export type UnpublishedBatchFile = z.infer<typeof UnpublishedBatchFile>

/** One line of the ledger (JSON Lines, appended): a trace scored and published by a monitor with these evaluators. */
export const MonitorLedgerLine = z.object({
  v: z.literal(1),
  monitorId: z.string().min(1),
  evaluatorsKey: z.string().min(1),
  traceId: z.string().min(1),
  runId: z.string().min(1),
  at: isoTime,
})
export type MonitorLedgerLine = z.infer<typeof MonitorLedgerLine>
