import type {
  EvaluatorScore,
  PolicyVerdict,
  RunnerInfo,
  TraceEvent,
  TraceEventOf,
  TrialRecord,
} from '../core/index.ts'
import { jsonContent, outputMessages, type ContentPolicy } from './content.ts'
import {
  attrs,
  epochMs,
  errorStatus,
  extentOf,
  SpanKind,
  type PlannedEvent,
  type PlannedSpan,
} from './plan.ts'
import {
  AEO,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  EVENT_GEN_AI_EVALUATION_RESULT,
  GEN_AI_OPERATION,
  SPAN,
} from './semconv.ts'

/*
 * One trial's spans. Times come from the trial's measured phases (`TrialRecord.timing`) when the record has them,
 * and otherwise from what its trace events say: an event is stamped when it is recorded, so a model call's event
 * marks the end of the call (its `latencyMs`, when the runner reports one, gives the start), a tool call's event
 * its start and the matching result's its end, and the evaluators' scores are recorded together once the last
 * evaluator is done. Prepare and teardown leave no event: without timing they have no span.
 */

/** Phase timing as the engine records it; read structurally so records of any age are taken as they come. */
interface TimingLike {
  startedAt?: string
  phases?: readonly { name?: string; startMs?: number; durationMs?: number }[]
}

interface Window {
  startMs: number
  endMs: number
}

type Source = 'timing' | 'events'

interface TrialTimes {
  /** Measured phase windows by name. */
  phases: Map<string, Window>
  /** The trial's measured start, when it has timing. */
  startedAtMs: number | null
}

export interface TrialPlanContext {
  content: ContentPolicy
  /** Where a trial with neither timing nor events is placed: the run's start. */
  fallbackMs: number
}

export function planTrial(
  trial: TrialRecord,
  events: readonly TraceEvent[],
  ctx: TrialPlanContext,
): PlannedSpan {
  const times = trialTimes(trial)
  const stamped = events
    .map((event) => ({ event, ms: epochMs(event.ts) }))
    .filter((e): e is { event: TraceEvent; ms: number } => e.ms !== null)

  const children: PlannedSpan[] = []
  const prepare = times.phases.get('prepare')
  if (prepare) children.push(phaseSpan(SPAN.prepare, prepare, trial))

  const agent = agentSpan(trial, stamped, times, ctx)
  if (agent) children.push(agent)
  const agentEnd = agent?.endMs ?? extentOf(children)?.endMs ?? times.startedAtMs ?? null

  const judged = evaluatorSpans(trial, stamped, times, agentEnd, ctx)
  children.push(...judged.spans)
  children.push(...policySpans(trial, stamped, times, judged.endMs ?? agentEnd, ctx))

  const teardown = times.phases.get('teardown')
  if (teardown) children.push(phaseSpan(SPAN.teardown, teardown, trial))

  const extent = extentOf(children)
  const recorded = rangeOf(stamped)
  const anchor = times.startedAtMs ?? recorded?.startMs ?? ctx.fallbackMs
  const startMs = Math.min(extent?.startMs ?? anchor, anchor)
  const endMs = Math.max(extent?.endMs ?? anchor, startMs, recorded?.endMs ?? startMs)
  const failed = trial.outcome === 'agent_error' || trial.outcome === 'infra_failure'
  return {
    name: SPAN.task,
    kind: SpanKind.INTERNAL,
    startMs,
    endMs,
    attributes: attrs({
      ...trialIds(trial),
      [AEO.benchmarkVersion]: trial.benchmark.version,
      [AEO.outcome]: trial.outcome,
      [AEO.passed]: trial.passed,
      [AEO.costUsd]: trial.usage.costUsd,
      [AEO.tokens]: trial.usage.tokens,
      [AEO.turns]: trial.usage.turns,
      [AEO.wallSeconds]: trial.usage.wallSeconds,
      [AEO.runnerName]: trial.runner.name,
      [AEO.runnerKind]: trial.runner.kind,
      [AEO.reusedFrom]: trial.reusedFrom?.runId,
      [AEO.timeSource]: times.startedAtMs === null ? 'events' : 'timing',
      ...labelAttributes(AEO.taskLabelPrefix, trial.labels),
    }),
    ...(failed
      ? { status: errorStatus(ctx.content.redactor.string(trial.result?.error ?? trial.outcome)) }
      : {}),
    children,
  }
}

export function labelAttributes(
  prefix: string,
  labels: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(labels)) out[`${prefix}${key}`] = value
  return out
}

function trialIds(trial: TrialRecord): Record<string, string | number> {
  return { [AEO.benchmarkId]: trial.benchmark.id, [AEO.taskId]: trial.taskId, [AEO.trial]: trial.trial }
}

function trialTimes(trial: TrialRecord): TrialTimes {
  const timing = (trial as { timing?: TimingLike }).timing
  const startedAtMs = epochMs(timing?.startedAt)
  const phases = new Map<string, Window>()
  if (startedAtMs === null) return { phases, startedAtMs }
  for (const phase of timing?.phases ?? []) {
    const { name, startMs, durationMs } = phase
    if (typeof name !== 'string' || !isTime(startMs) || !isTime(durationMs)) continue
    const start = startedAtMs + startMs
    phases.set(name, { startMs: start, endMs: start + durationMs })
  }
  return { phases, startedAtMs }
}

function isTime(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

function phaseSpan(name: string, window: Window, trial: TrialRecord): PlannedSpan {
  return {
    name,
    kind: SpanKind.INTERNAL,
    ...window,
    attributes: attrs({ ...trialIds(trial), [AEO.timeSource]: 'timing' }),
    children: [],
  }
}

interface Stamped<E extends TraceEvent = TraceEvent> {
  event: E
  ms: number
}

/** Earliest and latest of the events' times (not first and last by step: clocks can step back). */
function rangeOf(stamped: readonly Stamped[]): { startMs: number; endMs: number } | null {
  if (stamped.length === 0) return null
  let startMs = Infinity
  let endMs = -Infinity
  for (const s of stamped) {
    startMs = Math.min(startMs, s.ms)
    endMs = Math.max(endMs, s.ms)
  }
  return { startMs, endMs }
}

function isKind<K extends TraceEvent['kind']>(kind: K) {
  return (s: Stamped): s is Stamped<TraceEventOf<K>> => s.event.kind === kind
}

/** A runner's `latencyMs` extra, when it reports one. */
function latencyOf(payload: Record<string, unknown>): number | null {
  const value = payload['latencyMs']
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null
}

function numberOf(payload: Record<string, unknown>, key: string): number | undefined {
  const value = payload[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** The provider the conventions name, when the runner says which; custom runners say nothing. */
function providerOf(runner: RunnerInfo): string | undefined {
  const configured = runner.config['provider']
  if (typeof configured === 'string' && configured !== '') return configured
  return runner.kind === 'anthropic' ? 'anthropic' : undefined
}

function modelOf(runner: RunnerInfo): string | undefined {
  const model = runner.config['model']
  return typeof model === 'string' && model !== '' ? model : undefined
}

function agentSpan(
  trial: TrialRecord,
  stamped: readonly Stamped[],
  times: TrialTimes,
  ctx: TrialPlanContext,
): PlannedSpan | null {
  const agentEvents = stamped.filter((s) => s.event.kind.startsWith('agent.') || s.event.kind === 'cost.tick')
  const ran =
    times.phases.has('agent') ||
    trial.result !== null ||
    agentEvents.some((s) => s.event.kind !== 'agent.terminal')
  if (!ran) return null

  const measured = times.phases.get('agent')
  const recorded = rangeOf(agentEvents)
  const firstMs = recorded?.startMs
  const lastMs = recorded?.endMs
  // Without a measured phase the agent ran from its first recorded step (a model call's start, if earlier) to its last.
  const provisionalStart = measured?.startMs ?? firstMs ?? times.startedAtMs ?? ctx.fallbackMs
  const chats = chatSpans(trial, agentEvents, provisionalStart, ctx)
  const tools = toolSpans(agentEvents, ctx)
  const children = [...chats.spans, ...tools]
  const startMs =
    measured?.startMs ?? Math.min(provisionalStart, extentOf(children)?.startMs ?? provisionalStart)
  const endMs = measured?.endMs ?? Math.max(lastMs ?? startMs, startMs)

  const result = trial.result
  const finalAnswer =
    result?.finalAnswer ??
    agentEvents.filter(isKind('agent.final_answer')).at(-1)?.event.payload.answer ??
    null
  const content = ctx.content
  const source: Source = measured ? 'timing' : 'events'
  return {
    name: `${GEN_AI_OPERATION.invokeAgent} ${trial.runner.name}`,
    kind: SpanKind.INTERNAL,
    startMs,
    endMs,
    attributes: attrs({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.invokeAgent,
      [ATTR_GEN_AI_AGENT_NAME]: trial.runner.name,
      [ATTR_GEN_AI_PROVIDER_NAME]: providerOf(trial.runner),
      [ATTR_GEN_AI_REQUEST_MODEL]: modelOf(trial.runner),
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: chats.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: chats.outputTokens,
      [AEO.costUsd]: result?.totalCostUsd ?? trial.usage.costUsd,
      [AEO.tokens]: result?.totalTokens ?? trial.usage.tokens,
      [AEO.turns]: result?.turns,
      [AEO.wallSeconds]: result?.wallSeconds,
      [AEO.terminatedBy]: result?.terminatedBy,
      [AEO.runnerKind]: trial.runner.kind,
      [AEO.timeSource]: source,
      [ATTR_ERROR_TYPE]: result?.error ? result.terminatedBy : undefined,
      [ATTR_GEN_AI_OUTPUT_MESSAGES]:
        content.capture && finalAnswer !== null ? outputMessages(content, finalAnswer, undefined) : undefined,
    }),
    ...(result?.error ? { status: errorStatus(content.redactor.string(result.error)) } : {}),
    children,
  }
}

interface ChatPlan {
  spans: PlannedSpan[]
  /** Summed over the calls that reported them; undefined when none did. */
  inputTokens: number | undefined
  outputTokens: number | undefined
}

function chatSpans(
  trial: TrialRecord,
  agentEvents: readonly Stamped[],
  agentStartMs: number,
  ctx: TrialPlanContext,
): ChatPlan {
  const spans: PlannedSpan[] = []
  let inputTokens: number | undefined
  let outputTokens: number | undefined
  let previousMs = agentStartMs
  const provider = providerOf(trial.runner)
  for (const s of agentEvents) {
    const endMs = s.ms
    if (s.event.kind !== 'agent.model_call') {
      previousMs = endMs
      continue
    }
    const p = s.event.payload
    const latency = latencyOf(p)
    // A call without a reported latency began, at the earliest, when the step before it was recorded.
    const startMs = Math.min(latency === null ? previousMs : endMs - latency, endMs)
    previousMs = endMs
    const failed = p.status === 'error'
    if (!failed) {
      if (p.inputTokens !== undefined) inputTokens = (inputTokens ?? 0) + p.inputTokens
      if (p.outputTokens !== undefined) outputTokens = (outputTokens ?? 0) + p.outputTokens
    }
    const httpStatus = numberOf(p, 'httpStatus')
    spans.push({
      name: p.model ? `${GEN_AI_OPERATION.chat} ${p.model}` : GEN_AI_OPERATION.chat,
      kind: SpanKind.CLIENT,
      startMs,
      endMs,
      attributes: attrs({
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.chat,
        [ATTR_GEN_AI_PROVIDER_NAME]: provider,
        [ATTR_GEN_AI_REQUEST_MODEL]: p.model,
        [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: p.inputTokens,
        [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: p.outputTokens,
        [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: numberOf(p, 'cacheCreationInputTokens'),
        [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: numberOf(p, 'cacheReadInputTokens'),
        [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: p.stopReason ? [p.stopReason] : undefined,
        [AEO.costUsd]: s.event.costDeltaUsd,
        [AEO.step]: s.event.step,
        [AEO.attempt]: p.attempt,
        [ATTR_ERROR_TYPE]: failed ? (httpStatus === undefined ? '_OTHER' : String(httpStatus)) : undefined,
        [ATTR_GEN_AI_OUTPUT_MESSAGES]:
          ctx.content.capture && p.text !== undefined && !failed
            ? outputMessages(ctx.content, p.text, p.stopReason)
            : undefined,
      }),
      ...(failed ? { status: errorStatus(ctx.content.redactor.string(p.error ?? 'model call failed')) } : {}),
      children: [],
    })
  }
  return { spans, inputTokens, outputTokens }
}

/**
 * A tool call and its result, paired by call id, or else in order: each result without an id closes the oldest
 * open call of the same tool (of any tool, failing that). A call that never got a result is a point in time.
 */
function toolSpans(agentEvents: readonly Stamped[], ctx: TrialPlanContext): PlannedSpan[] {
  type Call = Stamped<TraceEventOf<'agent.tool_call'>>
  type Result = Stamped<TraceEventOf<'agent.tool_result'>>
  const calls: Call[] = agentEvents.filter(isKind('agent.tool_call'))
  const resultOf = new Map<Call, Result>()
  const byId = new Map<string, Call>()
  for (const call of calls) {
    const id = call.event.payload.callId
    if (id !== undefined && !byId.has(id)) byId.set(id, call)
  }
  const open: Call[] = []
  for (const s of agentEvents) {
    if (s.event.kind === 'agent.tool_call') {
      if (s.event.payload.callId === undefined) open.push(s as Call)
      continue
    }
    if (s.event.kind !== 'agent.tool_result') continue
    const result = s as Result
    const id = result.event.payload.callId
    if (id !== undefined) {
      const call = byId.get(id)
      if (call && !resultOf.has(call)) resultOf.set(call, result)
      continue
    }
    let i = open.findIndex((c) => c.event.payload.tool === result.event.payload.tool)
    if (i < 0) i = open.length > 0 ? 0 : -1
    if (i >= 0) resultOf.set(open.splice(i, 1)[0]!, result)
  }

  return calls.map((call) => {
    const result = resultOf.get(call)
    const p = call.event.payload
    const failed = result?.event.payload.isError === true
    const content = ctx.content
    return {
      name: `${GEN_AI_OPERATION.executeTool} ${p.tool}`,
      kind: SpanKind.INTERNAL,
      startMs: call.ms,
      endMs: Math.max(result?.ms ?? call.ms, call.ms),
      attributes: attrs({
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.executeTool,
        [ATTR_GEN_AI_TOOL_NAME]: p.tool,
        [ATTR_GEN_AI_TOOL_CALL_ID]: p.callId,
        [AEO.step]: call.event.step,
        [ATTR_ERROR_TYPE]: failed ? 'tool_error' : undefined,
        [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: content.capture ? jsonContent(content, p.args) : undefined,
        [ATTR_GEN_AI_TOOL_CALL_RESULT]:
          content.capture && result ? jsonContent(content, result.event.payload.result) : undefined,
      }),
      ...(failed ? { status: errorStatus('the tool reported an error') } : {}),
      children: [],
    }
  })
}

/** The id of a benchmark's own grading score (the engine's `gradeEvaluatorId`). */
function gradeId(trial: TrialRecord): string {
  return `${trial.benchmark.id}-grade`
}

/**
 * Evaluators run side by side, so each starts when the phase starts and lasts its own `latencyMs`; without a
 * measured phase, the phase ended when the scores were recorded and began the slowest evaluator's latency earlier.
 */
function evaluatorSpans(
  trial: TrialRecord,
  stamped: readonly Stamped[],
  times: TrialTimes,
  agentEndMs: number | null,
  ctx: TrialPlanContext,
): { spans: PlannedSpan[]; endMs: number | null } {
  const scoreEvents = stamped.filter(isKind('evaluator.score'))
  const measured = times.phases.get('evaluators')
  if (trial.scores.length === 0) return { spans: [], endMs: measured?.endMs ?? scoreEvents[0]?.ms ?? null }

  const slowest = Math.max(...trial.scores.map((s) => s.latencyMs))
  let phaseStart: number
  if (measured) phaseStart = measured.startMs
  else if (scoreEvents.length > 0) phaseStart = Math.min(...scoreEvents.map((s) => s.ms)) - slowest
  else phaseStart = agentEndMs ?? times.startedAtMs ?? ctx.fallbackMs
  if (!measured && agentEndMs !== null) phaseStart = Math.max(phaseStart, agentEndMs)

  const judgeCalls = stamped.filter(isKind('evaluator.model_call'))
  const source: Source = measured ? 'timing' : 'events'
  // Timing that measures grading on its own (a `grade` phase) places the grade span exactly.
  const grading = times.phases.get('grade')
  const spans = trial.scores.map((score) =>
    grading && score.evaluatorId === gradeId(trial)
      ? evaluatorSpan(trial, score, grading, 'timing', judgeCalls, ctx)
      : evaluatorSpan(
          trial,
          score,
          { startMs: phaseStart, endMs: phaseStart + score.latencyMs },
          source,
          judgeCalls,
          ctx,
        ),
  )
  const endMs = measured?.endMs ?? Math.max(...spans.map((s) => s.endMs))
  return { spans, endMs }
}

function evaluatorSpan(
  trial: TrialRecord,
  score: EvaluatorScore,
  { startMs, endMs }: Window,
  source: Source,
  judgeCalls: readonly Stamped<TraceEventOf<'evaluator.model_call'>>[],
  ctx: TrialPlanContext,
): PlannedSpan {
  const redact = ctx.content.redactor
  const failed = score.error !== null
  const result: PlannedEvent = {
    name: EVENT_GEN_AI_EVALUATION_RESULT,
    timeMs: endMs,
    attributes: attrs({
      [ATTR_GEN_AI_EVALUATION_NAME]: score.evaluatorId,
      [ATTR_GEN_AI_EVALUATION_SCORE_VALUE]: score.score,
      [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: score.passed ? 'pass' : 'fail',
      [ATTR_GEN_AI_EVALUATION_EXPLANATION]: score.explanation ? redact.string(score.explanation) : undefined,
      [ATTR_ERROR_TYPE]: failed ? 'evaluator_error' : undefined,
    }),
  }
  const isGrade = score.evaluatorId === gradeId(trial)
  return {
    name: isGrade ? SPAN.grade : `${SPAN.evaluator} ${score.evaluatorId}`,
    kind: SpanKind.INTERNAL,
    startMs,
    endMs,
    attributes: attrs({
      [AEO.evaluatorId]: score.evaluatorId,
      [AEO.evaluatorKind]: score.kind,
      [AEO.score]: score.score,
      [AEO.passed]: score.passed,
      [AEO.latencyMs]: score.latencyMs,
      [AEO.costUsd]: score.costUsd,
      [AEO.timeSource]: source,
    }),
    ...(failed ? { status: errorStatus(redact.string(score.error ?? 'evaluator error')) } : {}),
    events: [result],
    children: judgeCalls
      .filter((c) => c.event.payload.evaluatorId === score.evaluatorId)
      .map((c) => judgeCallSpan(c, ctx)),
  }
}

/** An LLM judge's model call: the event is recorded when the call ends, `latencyMs` before which it began. */
function judgeCallSpan(
  call: Stamped<TraceEventOf<'evaluator.model_call'>>,
  ctx: TrialPlanContext,
): PlannedSpan {
  const p = call.event.payload
  const failed = p.status !== 'ok'
  return {
    name: `${GEN_AI_OPERATION.chat} ${p.model}`,
    kind: SpanKind.CLIENT,
    startMs: call.ms - p.latencyMs,
    endMs: call.ms,
    attributes: attrs({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.chat,
      [ATTR_GEN_AI_REQUEST_MODEL]: p.model,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: p.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: p.outputTokens,
      [AEO.costUsd]: call.event.costDeltaUsd,
      [AEO.step]: call.event.step,
      [AEO.attempt]: p.attempt,
      [AEO.evaluatorId]: p.evaluatorId,
      [ATTR_ERROR_TYPE]: failed ? (p.status === 'malformed' ? 'malformed_response' : '_OTHER') : undefined,
    }),
    ...(failed ? { status: errorStatus(ctx.content.redactor.string(p.error ?? p.status)) } : {}),
    children: [],
  }
}

/** Policy checkers also run side by side; without a measured phase each ends when its verdict was recorded. */
function policySpans(
  trial: TrialRecord,
  stamped: readonly Stamped[],
  times: TrialTimes,
  afterMs: number | null,
  ctx: TrialPlanContext,
): PlannedSpan[] {
  const measured = times.phases.get('policy')
  const verdictEvents = stamped.filter(isKind('policy.verdict'))
  const startMs = measured?.startMs ?? afterMs ?? verdictEvents[0]?.ms ?? times.startedAtMs ?? ctx.fallbackMs
  return trial.verdicts.map((verdict: PolicyVerdict) => {
    const recorded = verdictEvents.find((e) => e.event.payload.checkerId === verdict.checkerId)?.ms
    return {
      name: `${SPAN.policy} ${verdict.checkerId}`,
      kind: SpanKind.INTERNAL,
      startMs,
      endMs: Math.max(measured?.endMs ?? recorded ?? startMs, startMs),
      attributes: attrs({
        [AEO.checkerId]: verdict.checkerId,
        [AEO.verdict]: verdict.verdict,
        [AEO.findings]: verdict.findings.length,
        [AEO.timeSource]: measured ? 'timing' : 'events',
      }),
      children: [],
    }
  })
}
