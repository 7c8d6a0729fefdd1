import type {
  AggregatedScore,
  FullTrace,
  IndividualScore,
  RunMetadata,
  TraceEvent,
  TrialRecord,
} from '../core/index.ts'

/*
 * How the parts of monitor mode meet: sources yield traces, the scorer turns one trace into scores (through the
 * engine's re-scoring path), the job folds them into a window's bundle and hands batches to publishers.
 */

/** The time window a run evaluates: traces that started in [start, end). */
export interface MonitorWindow {
  start: Date
  end: Date
}

/** One item a source read: a trace that parsed, or one that did not (skipped, with the reason counted). */
export type SourcedTrace =
  { ok: true; trace: FullTrace } | { ok: false; traceId: string | null; reason: string }

/** Where production traces come from: the seed's traces API, OTLP JSON files, Langfuse. */
export interface MonitorTraceSource {
  /** For logs and errors: e.g. `traces API http://127.0.0.1:4318`, never a secret. */
  readonly description: string
  /**
   * The window's traces, a page at a time (memory bounded by the page size), in the source's order. Stops between
   * pages once `signal` aborts; throws AgentEvalOpsError INFRA_FAILURE when the source fails after its retries.
   */
  pages(window: MonitorWindow, signal: AbortSignal): AsyncIterable<readonly SourcedTrace[]>
}

/** A score with its stable id: sha256 of (the judged trace or span id, evaluator identifier, evaluator version). */
export interface MonitorScore {
  id: string
  /** The evaluator's `identifier` (the payload's `evaluatorName` is its displayName). */
  identifier: string
  /** The span judged: the root span for level `trace`. OTLP log events are parented to it. */
  spanId: string
  /** In the seed's wire shape. */
  individual: IndividualScore
  /** Judge spend, for `--max-cost-usd`. */
  costUsd: number
  /** The evaluator's verdict on the target, when it gave one: what `pass_rate` counts. */
  passed?: boolean
}

/** What scoring one trace gave: its scores (any level) and the trial it became in the window's bundle. */
export interface ScoredTrace {
  traceId: string
  scores: MonitorScore[]
  /** The trace as a re-scored trial (benchmark = the monitor, task = the trace id), for the bundle. */
  record: TrialRecord
  events: readonly TraceEvent[]
}

/** Turns one production trace into scores; the same engine path as a re-scored trial. */
export type TraceScorer = (trace: FullTrace, signal: AbortSignal) => Promise<ScoredTrace>

/**
 * What one publish sends: the window's scores and their aggregates, with what each sink needs beyond the seed's.
 * The scores are not held in memory: each call of `scores()` reads them afresh (from the window's spill file, in
 * the order they were scored), so a sink streams them and a retry starts again from the first.
 */
export interface MonitorScoreBatch {
  monitorId: string
  runId: string
  monitorName: string
  window: { start: string; end: string }
  /** A new pass over the scores; throws (while iterating) when the spill cannot be read back. */
  scores(): AsyncIterable<MonitorScore>
  /** How many `scores()` yields. */
  count: number
  aggregated: AggregatedScore[]
}

/**
 * Folds a window's scores, one at a time as they arrive, into the window's aggregates: it keeps numbers (a value
 * per score, counts), never the scores.
 */
export interface ScoreAggregator {
  add(score: MonitorScore): void
  /** The aggregates of what was added, with the traces skipped before scoring (per evaluator identifier). */
  result(skipped: ReadonlyMap<string, number>): AggregatedScore[]
}

/** Where scores go: the seed's publisher API, Langfuse, OTLP log events. */
export interface ScorePublisher {
  readonly description: string
  /**
   * Sends the batch, retrying what its protocol says is worth retrying; throws AgentEvalOpsError INFRA_FAILURE
   * (message naming the endpoint, never a secret) when it gives up. Idempotent: resending a batch creates nothing
   * twice where the sink supports ids.
   */
  publish(batch: MonitorScoreBatch, signal: AbortSignal): Promise<void>
}

/** The window's run metadata adds this (status `monitor`): zod in src/core (RunMetadata.monitor), counts included. */
export type { MonitorRunInfo } from '../core/index.ts'

export type { RunMetadata }
