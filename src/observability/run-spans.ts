import {
  redactorFromEnv,
  sdkVersion,
  type Redactor,
  type RunMetadata,
  type RunSummary,
  type SummaryHead,
  type TraceEvent,
  type TrialRecord,
} from '../core/index.ts'
import type { ContentPolicy } from './content.ts'
import { resourceAttributesFromEnv, spanLimitsFromEnv, type Env } from './env.ts'
import {
  encodeSpanTree,
  envelopeText,
  randomSpanIds,
  requestLine,
  type EncodeContext,
  type SpanIds,
} from './otlp-encode.ts'
import { attrs, epochMs, SpanKind, type PlannedSpan } from './plan.ts'
import { AEO, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, CAPTURE_CONTENT_ENV, SPAN } from './semconv.ts'
import { labelAttributes, planTrial } from './trial-plan.ts'

/** The instrumentation scope our spans are reported under. */
export const TRACER_NAME = 'agentevalops'

/** When a run-level stage (scoring, report rendering) ran, if the caller measured it. */
export interface StageTime {
  startedAt: string
  durationMs: number
}

/** Measured run-level stages; without them eval.score and eval.report are points at the run's end. */
export interface RunStages {
  score?: StageTime | undefined
  report?: StageTime | undefined
}

/** How a run's spans are written, fixed when the run starts. */
export interface RunSpanOptions {
  /**
   * The run's start (RunMetadata.startedAt): where a trial with neither timing nor events is placed. The run span
   * itself starts at the metadata's `startedAt` handed to `runSpanLine`, which should be the same time.
   */
  startedAt: string
  /** Write message content (model text, tool arguments and results, final answers). Default off. */
  captureContent?: boolean | undefined
  /** Applied to every free text a span carries. Default: a redactor for the secrets of `env`. */
  redactor?: Redactor | undefined
  /**
   * Where OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, the span limits (OTEL_SPAN_ATTRIBUTE_*_LIMIT…) and the
   * secrets to redact are read. Default process.env.
   */
  env?: Env | undefined
  /** Span and trace ids; default random (as the OpenTelemetry SDK's). */
  ids?: SpanIds | undefined
}

export interface RunSpansInput extends Omit<RunSpanOptions, 'startedAt'> {
  metadata: RunMetadata
  trials: readonly TrialRecord[]
  /** Every trace event of the run, in any order; each trial takes its own. */
  events: readonly TraceEvent[]
  summary?: RunSummary | undefined
  stages?: RunStages | undefined
}

/** Whether the environment opts in to message content on spans (`…_CAPTURE_MESSAGE_CONTENT=true`). */
export function captureContentFromEnv(env: Env): boolean {
  return env[CAPTURE_CONTENT_ENV]?.trim().toLowerCase() === 'true'
}

/**
 * A run's spans.jsonl, written as the run goes: one trace, `eval.run` over every trial's `eval.task`, then the
 * run's scoring and report. Each line is one OTLP JSON ExportTraceServiceRequest (see otlp-json.ts), the body an
 * OTLP/HTTP export POSTs.
 *
 * Streaming use (the bundle reporter): make one per run as it starts; as each trial is folded, append
 * `trialSpanLine(record, events)` to the file (a trial's spans depend on nothing but its record, its events and
 * this run's ids); once the run is over, append `runSpanLine(metadata, summary, stages)`, the run-level spans
 * (`eval.run`, `eval.score`, `eval.report`), whose times cover every trial written before. The spans form a tree
 * by ids, not by line order, so the run line may come last; `buildRunSpanLines` puts it first, as bundles of
 * earlier versions have it. Nothing per trial is kept beyond the latest end time.
 *
 * The spans are drawn after the fact from records and events, with the times they report (see trial-plan.ts);
 * ids are random unless `ids` is given. No OpenTelemetry package is loaded: the JSON is written directly.
 */
export class RunSpanWriter {
  /** Chosen up front: every trial's `eval.task` names it as its parent before the run span is written. */
  readonly runSpanId: string
  private readonly encoding: EncodeContext
  private readonly content: ContentPolicy
  private readonly fallbackMs: number
  private readonly envelope: { prefix: string; suffix: string }
  /** The latest end of the trials written so far; null before the first. */
  private tasksEndMs: number | null = null

  constructor(options: RunSpanOptions) {
    const env = options.env ?? process.env
    const ids = options.ids ?? randomSpanIds()
    this.encoding = { traceId: ids.traceId(), ids, limits: spanLimitsFromEnv(env) }
    this.runSpanId = ids.spanId()
    this.content = {
      capture: options.captureContent === true,
      redactor: options.redactor ?? redactorFromEnv(env),
    }
    this.fallbackMs = epochMs(options.startedAt) ?? Date.now()
    this.envelope = envelopeText({
      resource: {
        ...resourceAttributesFromEnv(env),
        [ATTR_SERVICE_NAME]: env['OTEL_SERVICE_NAME']?.trim() || 'agentevalops',
        [ATTR_SERVICE_VERSION]: sdkVersion(),
      },
      scope: { name: TRACER_NAME, version: sdkVersion() },
    })
  }

  /**
   * One trial's line of spans.jsonl (no newline): its `eval.task` under the run span, and the agent, model and
   * tool calls, evaluators, policy checks, prepare and teardown under it. `events` are this trial's trace events,
   * in any order. Call it once per trial, in the order the trials should appear.
   */
  trialSpanLine(trial: TrialRecord, events: readonly TraceEvent[]): string {
    const plan = planTrial(trial, byStep(events), { content: this.content, fallbackMs: this.fallbackMs })
    const end = Math.max(plan.endMs, plan.startMs)
    this.tasksEndMs = this.tasksEndMs === null ? end : Math.max(this.tasksEndMs, end)
    const spans: string[] = []
    encodeSpanTree(plan, this.runSpanId, this.encoding, spans)
    return requestLine(this.envelope, spans)
  }

  /**
   * The run-level line (no newline): `eval.run`, then `eval.score` (when there is a summary) and `eval.report`.
   * Call it once, after the last trial's line: the run span's end covers every trial written before.
   */
  runSpanLine(metadata: RunMetadata, summary?: SummaryHead, stages?: RunStages): string {
    const plan = planRunLevel(metadata, summary, stages ?? {}, this.tasksEndMs)
    const spans: string[] = []
    encodeSpanTree(plan, undefined, this.encoding, spans, this.runSpanId)
    return requestLine(this.envelope, spans)
  }
}

/**
 * The whole of spans.jsonl at once, as its lines (without newlines): the run-level line first, then one line per
 * trial in the order of `trials`. The same lines the streaming writer makes, for callers that hold the whole run
 * (recover, re-rendering a bundle).
 */
export function buildRunSpanLines(input: RunSpansInput): string[] {
  const writer = new RunSpanWriter({ ...input, startedAt: input.metadata.startedAt })
  const eventsOf = groupEvents(input.trials, input.events)
  const trialLines = input.trials.map((trial, i) => writer.trialSpanLine(trial, eventsOf[i] ?? []))
  return [writer.runSpanLine(input.metadata, input.summary, input.stages), ...trialLines]
}

/**
 * The run span over the trials (whose spans were written already, ending at `tasksEndMs` at the latest), with
 * the run's scoring and report as its other children.
 */
function planRunLevel(
  metadata: RunMetadata,
  summary: SummaryHead | undefined,
  stages: RunStages,
  tasksEndMs: number | null,
): PlannedSpan {
  const runStart = epochMs(metadata.startedAt) ?? Date.now()
  const runEnd = Math.max(epochMs(metadata.finishedAt) ?? runStart, runStart)

  // Scoring follows the last trial; the report is rendered once the run is over.
  const lastTrialEnd = Math.min(Math.max(tasksEndMs ?? runStart, runStart), runEnd)
  const children: PlannedSpan[] = []
  if (summary) {
    const t = stageWindow(stages.score, lastTrialEnd)
    // Over several targets the pooled rate describes none of them: the spans leave it out, as the reports do.
    const primary = summary.headline.pooled === false ? undefined : summary.headline.primary
    children.push({
      name: SPAN.score,
      kind: SpanKind.INTERNAL,
      startMs: t.startMs,
      endMs: t.endMs,
      attributes: attrs({
        [AEO.trialCount]: summary.n,
        [AEO.passedTrials]: summary.passed,
        [AEO.passRate]: primary?.rate,
        [AEO.passRateLower]: primary?.ci?.lower,
        [AEO.passRateUpper]: primary?.ci?.upper,
        [AEO.costUsd]: summary.usage.costUsd,
        [AEO.tokens]: summary.usage.tokens,
        [AEO.comparisonVerdict]: summary.comparison?.verdict,
        [AEO.timeSource]: t.source,
      }),
      children: [],
    })
  }
  const r = stageWindow(stages.report, runEnd)
  children.push({
    name: SPAN.report,
    kind: SpanKind.INTERNAL,
    startMs: r.startMs,
    endMs: r.endMs,
    attributes: attrs({ [AEO.runId]: metadata.runId, [AEO.timeSource]: r.source }),
    children: [],
  })
  let endMs = Math.max(runEnd, tasksEndMs ?? runEnd)
  for (const child of children) endMs = Math.max(endMs, child.endMs, child.startMs)

  return {
    name: SPAN.run,
    kind: SpanKind.INTERNAL,
    startMs: runStart,
    endMs,
    attributes: attrs({
      [AEO.runId]: metadata.runId,
      [AEO.runStatus]: metadata.status,
      [AEO.trialCount]: metadata.trialCount,
      [AEO.passRate]: summary?.headline.pooled === false ? undefined : summary?.headline.primary.rate,
      [AEO.passedTrials]: summary?.passed,
      [AEO.costUsd]: summary?.usage.costUsd,
      [AEO.tokens]: summary?.usage.tokens,
      [AEO.benchmarks]: metadata.benchmarks.map((b) => b.id),
      [AEO.runners]: metadata.targets.map((t) => t.name),
      [AEO.gitSha]: metadata.git.sha,
      [AEO.vitestProject]: metadata.vitestProject,
      ...labelAttributes(AEO.labelPrefix, metadata.labels),
    }),
    // The trials' spans are written on their own lines; only the run-level children are planned here.
    children,
  }
}

/** Events sorted by step, copied only when they are not in order already. */
function byStep(events: readonly TraceEvent[]): readonly TraceEvent[] {
  for (let i = 1; i < events.length; i++) {
    if (events[i - 1]!.step > events[i]!.step) return [...events].sort((a, b) => a.step - b.step)
  }
  return events
}

/** A measured stage's window, or a point at `fallbackMs` (marked estimated) when it was not measured. */
function stageWindow(
  time: StageTime | undefined,
  fallbackMs: number,
): { startMs: number; endMs: number; source: 'timing' | 'estimated' } {
  const start = epochMs(time?.startedAt)
  if (start === null || !time || !(time.durationMs >= 0)) {
    return { startMs: fallbackMs, endMs: fallbackMs, source: 'estimated' }
  }
  return { startMs: start, endMs: start + time.durationMs, source: 'timing' }
}

/**
 * Each trial's events, sorted by step. Events of bundle formats 1 and 2 do not name their benchmark: they go to
 * the first trial with their task id and trial number, as bundle readers place them.
 */
function groupEvents(trials: readonly TrialRecord[], events: readonly TraceEvent[]): TraceEvent[][] {
  const index = new Map<string, number>()
  const loose = new Map<string, number>()
  trials.forEach((t, i) => {
    index.set(`${sized(t.benchmark.id)}${looseKey(t.taskId, t.trial)}`, i)
    const key = looseKey(t.taskId, t.trial)
    if (!loose.has(key)) loose.set(key, i)
  })
  const groups: TraceEvent[][] = trials.map(() => [])
  for (const event of events) {
    const key = looseKey(event.taskId, event.trial)
    const i = event.benchmark === undefined ? loose.get(key) : index.get(`${sized(event.benchmark)}${key}`)
    if (i !== undefined) groups[i]!.push(event)
  }
  for (const group of groups) group.sort((a, b) => a.step - b.step)
  return groups
}

/** Keys that cannot run into each other whatever the ids hold: each string prefixed by its length. */
const sized = (text: string): string => `${text.length}:${text}`
const looseKey = (taskId: string, trial: number): string => `${sized(taskId)}${trial}`
