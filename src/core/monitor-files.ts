import * as z from 'zod'
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
  /** The evaluator's verdict, when it gave one (what pass_rate counts). */
  passed: z.boolean().optional(),
})
export type MonitorScoreRecord = z.infer<typeof MonitorScoreRecord>

/**
 * One line of a window's score spill (JSON Lines, appended as each trace is scored) and of the body of an
 * unpublished file: a scored trace and its scores, in the order they were scored.
 */
export const MonitorSpillLine = z.object({
  traceId: z.string().min(1),
  scores: z.array(MonitorScoreRecord),
})
export type MonitorSpillLine = z.infer<typeof MonitorSpillLine>

/** What one publish sends (MonitorScoreBatch in src/monitor/contract.ts). */
export const MonitorScoreBatchRecord = z.object({
  monitorId: z.string().min(1),
  runId: z.string().min(1),
  monitorName: z.string().min(1),
  window: z.object({ start: isoTime, end: isoTime }),
  scores: z.array(MonitorScoreRecord),
  aggregated: z.array(AggregatedScore),
})

/** The first form of an unpublished file: one JSON document, the scores in `batch.scores`. Still read. */
export const UNPUBLISHED_FILE_VERSION_1 = 1
/** The unpublished file as written now: JSON Lines, a header line then the window's spill lines. */
export const UNPUBLISHED_FILE_VERSION = 2

/** `<output>/<runId>.unpublished.json` (version 1): a window's batch that a sink refused after its retries. */
export const UnpublishedBatchFile = z.object({
  version: z.literal(UNPUBLISHED_FILE_VERSION_1),
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

/**
 * The first line of `<output>/<runId>.unpublished.jsonl` (version 2): what version 1 held beside the scores, and
 * their count. Every further line is a MonitorSpillLine (a trace and its scores), so the file is written by
 * streaming the window's spill and read back one line at a time; its traces are the lines' trace ids.
 */
export const UnpublishedFileHeader = z.object({
  version: z.literal(UNPUBLISHED_FILE_VERSION),
  writtenAt: isoTime,
  failures: z.array(z.object({ sink: z.string(), error: z.string() })),
  evaluatorsKey: z.string().min(1),
  batch: MonitorScoreBatchRecord.omit({ scores: true }).extend({
    /** Scores in the lines that follow (a check that none was lost). */
    count: z.number().int().nonnegative(),
    /** Traces in the lines that follow. */
    traces: z.number().int().nonnegative(),
  }),
})
export type UnpublishedFileHeader = z.infer<typeof UnpublishedFileHeader>

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
