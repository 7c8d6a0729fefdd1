import { ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api'
import { millisToHrTime } from '@opentelemetry/core'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import {
  redactorFromEnv,
  sdkVersion,
  type Redactor,
  type RunMetadata,
  type RunSummary,
  type TraceEvent,
  type TrialRecord,
} from '../core/index.ts'
import { resourceAttributesFromEnv, type Env } from './env.ts'
import { attrs, epochMs, extentOf, SpanKind, type PlannedSpan } from './plan.ts'
import { AEO, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, CAPTURE_CONTENT_ENV, SPAN } from './semconv.ts'
import { labelAttributes, planTrial } from './trial-plan.ts'

/** The instrumentation scope our spans are reported under. */
export const TRACER_NAME = 'agentevalops'

/** When a run-level stage (scoring, report rendering) ran, if the caller measured it. */
export interface StageTime {
  startedAt: string
  durationMs: number
}

export interface RunSpansInput {
  metadata: RunMetadata
  trials: readonly TrialRecord[]
  /** Every trace event of the run, in any order; each trial takes its own. */
  events: readonly TraceEvent[]
  summary?: RunSummary
  /** Write message content (model text, tool arguments and results, final answers). Default off. */
  captureContent?: boolean
  /** Applied to every free text a span carries. Default: a redactor for the secrets of `env`. */
  redactor?: Redactor
  /** Measured run-level stages; without them eval.score and eval.report are points at the run's end. */
  stages?: { score?: StageTime; report?: StageTime }
  /** Where OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and the secrets to redact are read. Default process.env. */
  env?: Env
}

/** Whether the environment opts in to message content on spans (`…_CAPTURE_MESSAGE_CONTENT=true`). */
export function captureContentFromEnv(env: Env): boolean {
  return env[CAPTURE_CONTENT_ENV]?.trim().toLowerCase() === 'true'
}

/**
 * The run's spans, drawn after the fact from its records and trace events, with the times they report (see
 * trial-plan.ts). One trace: `eval.run` over every trial's `eval.task`, then the run's scoring and report. Spans
 * come back parents first, in the order of `trials`; their ids are random.
 */
export function buildRunSpans(input: RunSpansInput): ReadableSpan[] {
  const env = input.env ?? process.env
  const redactor = input.redactor ?? redactorFromEnv(env)
  const plan = planRun(input, { capture: input.captureContent === true, redactor })

  const finished: ReadableSpan[] = []
  const collector: SpanProcessor = {
    onStart: () => {},
    onEnd: (span) => void finished.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  }
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      ...resourceAttributesFromEnv(env),
      [ATTR_SERVICE_NAME]: env['OTEL_SERVICE_NAME']?.trim() || 'agentevalops',
      [ATTR_SERVICE_VERSION]: sdkVersion(),
    }),
    // The bundle keeps every span: a sampler set in the environment for live tracing must not thin it out.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [collector],
  })
  const tracer = provider.getTracer(TRACER_NAME, sdkVersion())

  const emit = (planned: PlannedSpan, parent: Context): void => {
    const span = tracer.startSpan(
      planned.name,
      { kind: planned.kind, startTime: millisToHrTime(planned.startMs), attributes: planned.attributes },
      parent,
    )
    if (planned.status) span.setStatus(planned.status)
    for (const event of planned.events ?? []) {
      span.addEvent(event.name, event.attributes, millisToHrTime(Math.max(event.timeMs, planned.startMs)))
    }
    // Ended before its children start: the SDK needs only the parent's context, and this keeps the output parents-first.
    span.end(millisToHrTime(Math.max(planned.endMs, planned.startMs)))
    const context = trace.setSpan(parent, span)
    for (const child of planned.children) emit(child, context)
  }
  emit(plan, ROOT_CONTEXT)
  return finished
}

/** The whole run as planned spans. */
function planRun(input: RunSpansInput, content: { capture: boolean; redactor: Redactor }): PlannedSpan {
  const { metadata, summary } = input
  const runStart = epochMs(metadata.startedAt) ?? Date.now()
  const runEnd = Math.max(epochMs(metadata.finishedAt) ?? runStart, runStart)
  const eventsOf = groupEvents(input.trials, input.events)
  const tasks = input.trials.map((trial, i) =>
    planTrial(trial, eventsOf[i] ?? [], { content, fallbackMs: runStart }),
  )

  // Scoring follows the last trial; the report is rendered once the run is over.
  const lastTrialEnd = Math.min(Math.max(extentOf(tasks)?.endMs ?? runStart, runStart), runEnd)
  const children: PlannedSpan[] = [...tasks]
  if (summary) {
    const t = stageWindow(input.stages?.score, lastTrialEnd)
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
  const r = stageWindow(input.stages?.report, runEnd)
  children.push({
    name: SPAN.report,
    kind: SpanKind.INTERNAL,
    startMs: r.startMs,
    endMs: r.endMs,
    attributes: attrs({ [AEO.runId]: metadata.runId, [AEO.timeSource]: r.source }),
    children: [],
  })

  return {
    name: SPAN.run,
    kind: SpanKind.INTERNAL,
    startMs: runStart,
    endMs: Math.max(runEnd, extentOf(children)?.endMs ?? runEnd),
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
    children,
  }
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
    index.set(JSON.stringify([t.benchmark.id, t.taskId, t.trial]), i)
    const key = JSON.stringify([t.taskId, t.trial])
    if (!loose.has(key)) loose.set(key, i)
  })
  const groups: TraceEvent[][] = trials.map(() => [])
  for (const event of events) {
    const i =
      event.benchmark === undefined
        ? loose.get(JSON.stringify([event.taskId, event.trial]))
        : index.get(JSON.stringify([event.benchmark, event.taskId, event.trial]))
    if (i !== undefined) groups[i]!.push(event)
  }
  for (const group of groups) group.sort((a, b) => a.step - b.step)
  return groups
}
