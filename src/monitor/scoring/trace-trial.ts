import {
  checksumOf,
  sha256,
  AEO,
  TERMINATED_BY,
  type AgentResult,
  type AmpAttributes,
  type AmpSpan,
  type BenchmarkInfo,
  type FullTrace,
  type MonitorLevel,
  type TaskSpec,
  type TerminatedBy,
  type TraceEvent,
  type TrialOutcome,
  type TrialRecord,
} from '../../core/index.ts'
import { costOf } from '../../models/index.ts'
import {
  ampOf,
  instantOf,
  jsonOf,
  numberAttribute,
  plainJson,
  spanError,
  spanFailed,
  stringAttribute,
  textOf,
  toolSpecsOf,
} from './span-content.ts'

/*
 * A production trace as a finished trial, so the engine can re-score it like a resumed trial (`reuse: rescored`).
 *
 * Spans, by `ampAttributes.kind`, become trace events, ordered by the time they happened:
 * - `llm` → one `agent.model_call` at the span's end (our own spans end a chat span where its event was recorded):
 *   model = data.model, tokens = data.tokenUsage (counted as the event's tokensDelta unless the call failed),
 *   text = the reply's text (output as text, `{ content }` or GenAI messages), status `error` with the error when
 *   the span failed. Cost: our own spans' `agentevalops.usage.cost_usd` when present, else the price table's for a
 *   known model (src/models/pricing.ts), else 0.
 * - `tool` → `agent.tool_call` at the span's start (tool = data.name or the span's name, args = input) and
 *   `agent.tool_result` at its end (result = output, isError when the span failed; the error message is the result
 *   when there is no output). Both carry the span id as callId, so call and result pair exactly.
 * - `agent` spans make no event of their own: they give the task (input → prompt, data.tools → tools) and the
 *   runner's name; an agent-level score judges the subtree under one agent span as a trial of its own.
 * - every other kind (chain, retriever, our own eval.* spans…) makes no event.
 * The trace's output (else the root agent's) becomes `agent.final_answer` after the last step, then the
 * `agent.terminal` event: terminatedBy is our own spans' `agentevalops.agent.terminated_by` when it names one,
 * else `agent_error` when the root or the agent failed (`limit_time` when the error says it timed out), else
 * `completed`. Tool errors alone do not fail the trial: the agent saw them as results.
 *
 * Round trip: an eval run's spans.jsonl (written with message content captured) mapped back by the sources part
 * (gen_ai.operation.name chat → llm, execute_tool → tool, invoke_agent → agent; gen_ai.tool.call.arguments /
 * .result → input / output; gen_ai.output.messages → output) gives the run's tool calls, results, model texts and
 * final answer in the run's order, so tool-use and trace-quality score it as the run did. Equal times are ordered by
 * `agentevalops.step` when our spans carry it, else by span order, a call before its result. What spans do not
 * carry (plans, observations, the task's expected answer) is not there to judge; tool definitions come from an
 * agent span's data.tools or the evaluator's own `tools` option.
 */

/** What a score judges: the whole trace, or one agent or LLM span (the subtree under it). */
export type TrialTarget = { level: 'trace' } | { level: Exclude<MonitorLevel, 'trace'>; span: AmpSpan }

export interface TraceTrial {
  task: TaskSpec
  /** The trace as an earlier run's record: what the engine's re-score path takes over. */
  from: TrialRecord
  events: TraceEvent[]
  /** For the runner's info: the agent's name, when a span names it. */
  agentName: string | null
  /** The model the trial's LLM calls used, when one did. */
  model: string | null
}

export interface TraceTrialIds {
  runId: string
  benchmark: BenchmarkInfo
  /** The trial's task id: the trace id for level `trace`, `<traceId>/<spanId>` for a span. */
  taskId: string
}

interface Point {
  at: readonly [number, number]
  /** Our own spans' step, when they carry it: orders points of equal time. */
  step: number
  /** Position of the span in the trace, then call (0) before result (1). */
  order: number
  event: Omit<TraceEvent, 'runId' | 'benchmark' | 'taskId' | 'trial' | 'step'>
}

const TERMINATIONS = new Set<string>(TERMINATED_BY)

/** Span ids of trace events are 16 hex digits; production ids that are not keep a stable stand-in. */
export function eventSpanId(spanId: string): string {
  const id = spanId.toLowerCase()
  return /^[0-9a-f]{16}$/.test(id) ? id : sha256(spanId).slice(0, 16)
}

/** Every span under `root` (not itself), in the trace's order. */
export function subtreeOf(trace: FullTrace, root: AmpSpan): AmpSpan[] {
  const children = new Map<string, AmpSpan[]>()
  for (const s of trace.spans) {
    if (!s.parentSpanId) continue
    const list = children.get(s.parentSpanId)
    if (list) list.push(s)
    else children.set(s.parentSpanId, [s])
  }
  const inside = new Set<AmpSpan>()
  const stack = [...(children.get(root.spanId) ?? [])]
  while (stack.length > 0) {
    const s = stack.pop()!
    if (inside.has(s) || s === root) continue
    inside.add(s)
    stack.push(...(children.get(s.spanId) ?? []))
  }
  return trace.spans.filter((s) => inside.has(s))
}

/** The nearest agent span above `span` (or itself), for the agent's name in a span's score. */
export function agentAbove(trace: FullTrace, span: AmpSpan): AmpSpan | null {
  const byId = new Map(trace.spans.map((s) => [s.spanId, s]))
  const seen = new Set<string>()
  let current: AmpSpan | undefined = span
  while (current && !seen.has(current.spanId)) {
    seen.add(current.spanId)
    if (ampOf(current).kind === 'agent') return current
    current = current.parentSpanId ? byId.get(current.parentSpanId) : undefined
  }
  return null
}

export function agentNameOf(span: AmpSpan): string {
  return ampOf(span).data?.name ?? stringAttribute(span, 'gen_ai.agent.name') ?? span.name
}

function modelCallPoint(span: AmpSpan, amp: AmpAttributes, order: number): Point {
  const usage = amp.data?.tokenUsage ?? {}
  const inputTokens = usage.inputTokens ?? 0
  const outputTokens = usage.outputTokens ?? 0
  const failed = spanFailed(span, amp)
  const model = amp.data?.model
  const text = failed ? null : textOf(amp.output)
  const known = numberAttribute(span, AEO.costUsd)
  const priced = model ? costOf(model, { input_tokens: inputTokens, output_tokens: outputTokens }) : null
  const finish = span.attributes['gen_ai.response.finish_reasons']
  const stopReason = Array.isArray(finish) && typeof finish[0] === 'string' ? finish[0] : undefined
  return {
    at: instantOf(span.endTime),
    step: numberAttribute(span, AEO.step) ?? Infinity,
    order: order * 2,
    event: {
      ts: new Date(instantOf(span.endTime)[0]).toISOString(),
      kind: 'agent.model_call',
      payload: {
        ...(model ? { model } : {}),
        ...(usage.inputTokens !== undefined ? { inputTokens } : {}),
        ...(usage.outputTokens !== undefined ? { outputTokens } : {}),
        ...(stopReason ? { stopReason } : {}),
        ...(text !== null ? { text } : {}),
        ...(failed ? { status: 'error' as const, error: spanError(span, amp) } : {}),
      },
      tokensDelta: failed ? 0 : (usage.totalTokens ?? inputTokens + outputTokens),
      costDeltaUsd: known !== undefined && known >= 0 ? known : (priced ?? 0),
      spanId: eventSpanId(span.spanId),
    },
  }
}

function toolPoints(span: AmpSpan, amp: AmpAttributes, order: number): Point[] {
  const tool = amp.data?.name ?? stringAttribute(span, 'gen_ai.tool.name') ?? span.name
  const failed = spanFailed(span, amp)
  const callId = stringAttribute(span, 'gen_ai.tool.call.id') ?? span.spanId
  const step = numberAttribute(span, AEO.step) ?? Infinity
  const spanId = eventSpanId(span.spanId)
  const result =
    amp.output === undefined || amp.output === null
      ? failed
        ? spanError(span, amp)
        : null
      : jsonOf(amp.output)
  return [
    {
      at: instantOf(span.startTime),
      step,
      order: order * 2,
      event: {
        ts: new Date(instantOf(span.startTime)[0]).toISOString(),
        kind: 'agent.tool_call',
        payload: { tool, args: jsonOf(amp.input ?? {}), callId },
        tokensDelta: 0,
        costDeltaUsd: 0,
        spanId,
      },
    },
    {
      at: instantOf(span.endTime),
      // A result comes after its call, whatever the time says.
      step: step + 0.5,
      order: order * 2 + 1,
      event: {
        ts: new Date(instantOf(span.endTime)[0]).toISOString(),
        kind: 'agent.tool_result',
        payload: { tool, result, callId, ...(failed ? { isError: true } : {}) },
        tokensDelta: 0,
        costDeltaUsd: 0,
        spanId,
      },
    },
  ]
}

function comparePoints(a: Point, b: Point): number {
  return a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.step - b.step || a.order - b.order
}

function terminationOf(
  trace: FullTrace,
  target: TrialTarget,
): { terminatedBy: TerminatedBy; error: string | null } {
  const byId = new Map(trace.spans.map((s) => [s.spanId, s]))
  const candidates = (
    target.level === 'trace'
      ? [byId.get(trace.rootSpanId), ...trace.spans.filter((s) => ampOf(s).kind === 'agent')]
      : [target.span]
  ).filter((s): s is AmpSpan => s !== undefined)
  for (const s of candidates) {
    const named = stringAttribute(s, AEO.terminatedBy)
    if (named && TERMINATIONS.has(named)) {
      const amp = ampOf(s)
      const failed = named !== 'completed'
      return { terminatedBy: named as TerminatedBy, error: failed ? spanError(s, amp) : null }
    }
  }
  // Only the root (or the one agent span judged) decides: an agent that recovered from a failed step completed.
  const decisive = target.level === 'trace' ? byId.get(trace.rootSpanId) : target.span
  const agents = target.level === 'trace' ? candidates.filter((s) => ampOf(s).kind === 'agent') : []
  const failedSpan = [
    decisive,
    ...agents.filter((s) => !s.parentSpanId || s.parentSpanId === trace.rootSpanId),
  ]
    .filter((s): s is AmpSpan => s !== undefined)
    .find((s) => spanFailed(s, ampOf(s)))
  if (!failedSpan) return { terminatedBy: 'completed', error: null }
  const error = spanError(failedSpan, ampOf(failedSpan))
  return { terminatedBy: /time ?out|timed out|deadline/i.test(error) ? 'limit_time' : 'agent_error', error }
}

/** The earlier run's outcome as the trace tells it; the engine classifies the re-scored trial afresh. */
function outcomeOf(terminatedBy: TerminatedBy): TrialOutcome {
  if (terminatedBy === 'completed') return 'passed'
  if (terminatedBy.startsWith('limit_')) return 'limit_exceeded'
  if (terminatedBy === 'interrupted' || terminatedBy === 'infra_failure') return terminatedBy
  return 'agent_error'
}

function durationSeconds(start: string, end: string): number {
  const [a, an] = instantOf(start)
  const [b, bn] = instantOf(end)
  return Math.max(0, (b - a) / 1000 + (bn - an) / 1e9)
}

/**
 * The trial a target of a trace becomes: its task, its events (an agent's part ending in `agent.terminal`) and
 * the record the engine re-scores it from. See the comment at the top of this module for the mapping.
 */
export function traceTrial(trace: FullTrace, target: TrialTarget, ids: TraceTrialIds): TraceTrial {
  const root = target.level === 'trace' ? trace.spans.find((s) => s.spanId === trace.rootSpanId) : target.span
  const spans =
    target.level === 'trace'
      ? trace.spans
      : target.level === 'agent'
        ? subtreeOf(trace, target.span)
        : [target.span]
  const points: Point[] = []
  let model: string | null = null
  let turns = 0
  spans.forEach((span, i) => {
    const amp = ampOf(span)
    if (amp.kind === 'llm') {
      const p = modelCallPoint(span, amp, i)
      points.push(p)
      if (!spanFailed(span, amp)) turns++
      model ??= amp.data?.model ?? null
    } else if (amp.kind === 'tool') points.push(...toolPoints(span, amp, i))
  })
  points.sort(comparePoints)

  const agentSpan =
    target.level === 'agent'
      ? target.span
      : target.level === 'llm'
        ? agentAbove(trace, target.span)
        : (trace.spans.find((s) => ampOf(s).kind === 'agent') ?? null)
  const agentAmp = agentSpan ? ampOf(agentSpan) : null
  const rootAmp = root ? ampOf(root) : null
  const input =
    target.level === 'trace' ? (trace.input ?? agentAmp?.input ?? rootAmp?.input) : (rootAmp?.input ?? null)
  const output =
    target.level === 'trace'
      ? (trace.output ?? agentAmp?.output ?? rootAmp?.output)
      : (rootAmp?.output ?? null)
  const finalAnswer = textOf(output)
  const { terminatedBy, error } = terminationOf(trace, target)

  const start = target.level === 'trace' ? trace.startTime : target.span.startTime
  const end = target.level === 'trace' ? trace.endTime : target.span.endTime
  const endTs = new Date(instantOf(end)[0]).toISOString()
  const rootSpanId = eventSpanId(root?.spanId ?? trace.rootSpanId)
  const tail: Point['event'][] = []
  if (finalAnswer !== null) {
    tail.push({
      ts: endTs,
      kind: 'agent.final_answer',
      payload: { answer: finalAnswer },
      tokensDelta: 0,
      costDeltaUsd: 0,
      spanId: rootSpanId,
    })
  }
  const eventsSoFar = [...points.map((p) => p.event), ...tail]
  const totalTokens = eventsSoFar.reduce((n, e) => n + e.tokensDelta, 0)
  const totalCostUsd = eventsSoFar.reduce((n, e) => n + e.costDeltaUsd, 0)
  const wallSeconds = durationSeconds(start, end)
  const success = terminatedBy === 'completed'
  const result: AgentResult = {
    success,
    finalAnswer,
    artifacts: [],
    error,
    totalCostUsd,
    totalTokens,
    turns,
    wallSeconds,
    terminatedBy,
  }
  tail.push({
    ts: endTs,
    kind: 'agent.terminal',
    payload: {
      terminatedBy,
      success,
      error,
      finalAnswer,
      totalTokens,
      totalCostUsd,
      turns,
      wallSeconds,
    },
    tokensDelta: 0,
    costDeltaUsd: 0,
    spanId: rootSpanId,
  })
  const base = { runId: ids.runId, benchmark: ids.benchmark.id, taskId: ids.taskId, trial: 0 }
  const events = [...points.map((p) => p.event), ...tail].map(
    (e, step) => ({ ...base, step, ...e }) as TraceEvent,
  )

  const tools = agentAmp ? toolSpecsOf(agentAmp) : []
  const prompt = textOf(input) ?? ''
  const content = {
    id: ids.taskId,
    benchmark: ids.benchmark.id,
    prompt,
    input: plainJson(input ?? null),
    ...(tools.length > 0 ? { tools } : {}),
  }
  const task: TaskSpec = { ...content, metadata: {}, checksum: checksumOf(content) }
  const agentName = agentSpan ? agentNameOf(agentSpan) : null
  const from: TrialRecord = {
    runId: `trace:${trace.traceId}`,
    benchmark: ids.benchmark,
    taskId: ids.taskId,
    taskChecksum: task.checksum,
    trial: 0,
    outcome: outcomeOf(terminatedBy),
    passed: success,
    result,
    scores: [],
    verdicts: [],
    usage: { tokens: totalTokens, costUsd: totalCostUsd, wallSeconds, turns },
    runner: { name: agentName ?? trace.rootSpanName, kind: 'monitor', config: {} },
    tracePath: `${ids.taskId}.jsonl`,
    eventCount: events.length,
    warnings: [],
    labels: {},
    keys: null,
    reusedFrom: null,
  }
  return { task, from, events, agentName, model }
}
