import {
  newSpanId,
  type Redactor,
  type TraceEvent,
  type TraceEventKind,
  type TracePayload,
  type TraceWriter,
} from '../core/index.ts'
import { redactPayload } from './redact-payload.ts'

export interface TrialIds {
  runId: string
  /** The benchmark id: task ids are unique within a benchmark only. */
  benchmark: string
  taskId: string
  trial: number
}

/**
 * Numbers, stamps and streams one trial's events. Appends are not awaited one by one (a runner must not wait on
 * disk between steps); they are collected and awaited together before the trace is finalized.
 */
export class TraceRecorder {
  readonly events: TraceEvent[] = []
  private readonly writes: Promise<void>[] = []
  private writeError: unknown = null

  constructor(
    private readonly ids: TrialIds,
    private readonly writer: TraceWriter,
    /** Applied to every payload before it is kept or written: no secret reaches the trace. */
    private readonly redactor?: Redactor,
  ) {}

  get path(): string {
    return this.writer.path
  }

  /** The payload must already be plain, validated JSON. */
  record<K extends TraceEventKind>(
    kind: K,
    payload: TracePayload<K>,
    tokensDelta = 0,
    costDeltaUsd = 0,
  ): TraceEvent {
    const event = {
      runId: this.ids.runId,
      benchmark: this.ids.benchmark,
      taskId: this.ids.taskId,
      trial: this.ids.trial,
      step: this.events.length,
      ts: new Date().toISOString(),
      kind,
      payload: this.redactor ? redactPayload(this.redactor, kind, payload) : payload,
      tokensDelta,
      costDeltaUsd,
      spanId: newSpanId(),
    } as TraceEvent
    return this.keep(event)
  }

  /**
   * Takes an event of an earlier run's trace as it was, but for its run id and step number (resume), and its
   * benchmark, which an event of an older bundle does not name.
   */
  copy(event: TraceEvent): TraceEvent {
    const { runId, benchmark } = this.ids
    return this.keep({ ...event, runId, benchmark, step: this.events.length })
  }

  private keep(event: TraceEvent): TraceEvent {
    this.events.push(event)
    try {
      this.writes.push(this.writer.append(event).catch((e: unknown) => this.fail(e)))
    } catch (e) {
      this.fail(e)
    }
    return event
  }

  /** Finalizes the trace; returns the first write error, or null when all is on disk. */
  async close(): Promise<unknown> {
    // Finalize first: it flushes the appends still in flight at once. Waiting for them before it would sit out a
    // group-commit window (JsonlTraceStore's 20 ms) on every trial.
    try {
      await this.writer.finalize()
    } catch (e) {
      this.fail(e)
    }
    await Promise.all(this.writes)
    return this.writeError
  }

  private fail(e: unknown): void {
    this.writeError ??= e
  }
}
