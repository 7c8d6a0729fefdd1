/*
 * The span path agentevalops had before spans were written as OTLP JSON directly: the same plans handed to
 * OpenTelemetry's SDK (BasicTracerProvider) and serialised by its OTLP JSON serializer (otlp-transformer). Kept,
 * verbatim but for its import paths and an optional id generator, as the reference the direct writer is held
 * equal to (span-parity.test.ts) and for the span-building measurement (bench/spans.mjs). Test-only: the SDK is a
 * devDependency.
 */
import { ROOT_CONTEXT, trace, type Context, type SpanKind as ApiSpanKind } from '@opentelemetry/api'
import { millisToHrTime } from '@opentelemetry/core'
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  type IdGenerator,
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
} from '../../src/core/index.ts'
import { resourceAttributesFromEnv, type Env } from '../../src/observability/env.ts'
import { attrs, epochMs, extentOf, SpanKind, type PlannedSpan } from '../../src/observability/plan.ts'
import { AEO, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, SPAN } from '../../src/observability/semconv.ts'
import { labelAttributes, planTrial } from '../../src/observability/trial-plan.ts'

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
  /** The SDK's id generator; default its random one. */
  idGenerator?: IdGenerator
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
    ...(input.idGenerator ? { idGenerator: input.idGenerator } : {}),
  })
  const tracer = provider.getTracer(TRACER_NAME, sdkVersion())

  const emit = (planned: PlannedSpan, parent: Context): void => {
    const span = tracer.startSpan(
      planned.name,
      {
        kind: planned.kind as ApiSpanKind,
        startTime: millisToHrTime(planned.startMs),
        attributes: planned.attributes,
      },
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

/** The lines of spans.jsonl (without newlines): run-level spans first, then one line per `eval.task` subtree. */
export function spansToOtlpLines(spans: readonly ReadableSpan[]): string[] {
  const byId = new Map<string, ReadableSpan>()
  for (const span of spans) byId.set(span.spanContext().spanId, span)

  // The eval.task each span sits under (itself, for a task span), found by walking up; memoised per span.
  const taskOf = new Map<string, string | null>()
  const findTask = (span: ReadableSpan): string | null => {
    const path: string[] = []
    let found: string | null = null
    let current: ReadableSpan | undefined = span
    // Bounded by the number of spans: a cycle in hostile input cannot loop forever.
    for (let hops = 0; current && hops <= byId.size; hops++) {
      const id = current.spanContext().spanId
      const known = taskOf.get(id)
      if (known !== undefined) {
        found = known
        break
      }
      path.push(id)
      if (current.name === SPAN.task) {
        found = id
        break
      }
      const parent: string | undefined = current.parentSpanContext?.spanId
      current = parent === undefined ? undefined : byId.get(parent)
    }
    for (const id of path) taskOf.set(id, found)
    return found
  }

  const runLevel: ReadableSpan[] = []
  const perTask = new Map<string, ReadableSpan[]>()
  for (const span of spans) {
    const task = findTask(span)
    if (task === null) {
      runLevel.push(span)
      continue
    }
    const group = perTask.get(task)
    if (group) group.push(span)
    else perTask.set(task, [span])
  }
  const groups = runLevel.length > 0 ? [runLevel, ...perTask.values()] : [...perTask.values()]
  return groups.map(serialize)
}

const decoder = new TextDecoder()

function serialize(spans: ReadableSpan[]): string {
  const bytes = JsonTraceSerializer.serializeRequest(spans)
  if (!bytes) throw new Error('the OTLP JSON serializer produced nothing')
  return decoder.decode(bytes)
}
