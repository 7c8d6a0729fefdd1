import { FullTrace, type AmpSpan } from '../../core/index.ts'
import type { MonitorWindow, SourcedTrace } from '../contract.ts'

/*
 * A FullTrace from the spans of one trace, whatever source they came from: the root, the trace's input and output,
 * its token usage and error count derived the way the seed's traces service reports them. The result is checked
 * against the FullTrace schema, so a source hands the job either a trace that parses or a reason it does not.
 */

export interface TraceParts {
  traceId: string
  spans: readonly AmpSpan[]
  /** The root when the source knows it (our trial span); otherwise the earliest span without a parent here. */
  rootSpanId?: string | undefined
  taskId?: string | undefined
  trialId?: string | undefined
  /** Trace-level input and output when the source has them apart from the spans (Langfuse traces do). */
  input?: unknown
  output?: unknown
}

export function assembleTrace(parts: TraceParts): SourcedTrace {
  const { traceId, spans } = parts
  if (spans.length === 0) return { ok: false, traceId, reason: 'the trace has no spans' }
  const ids = new Set(spans.map((s) => s.spanId))
  const root =
    (parts.rootSpanId === undefined ? undefined : spans.find((s) => s.spanId === parts.rootSpanId)) ??
    earliest(spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId)))
  if (!root)
    return { ok: false, traceId, reason: 'the trace has no root span (its parent links form a cycle)' }

  const ordered = [...spans].sort((x, y) => compareTimes(x.startTime, y.startTime))
  const agents = ordered.filter((s) => kindOf(s) === 'agent')
  const llms = ordered.filter((s) => kindOf(s) === 'llm')
  let inputTokens = 0
  let outputTokens = 0
  let totalTokens = 0
  for (const span of llms) {
    const usage = usageOf(span)
    inputTokens += usage.inputTokens
    outputTokens += usage.outputTokens
    totalTokens += usage.totalTokens
  }
  const startTime = root.startTime
  const endTime = ordered.reduce(
    (end, s) => (compareTimes(s.endTime, end) > 0 ? s.endTime : end),
    root.endTime,
  )
  const candidate = {
    traceId,
    rootSpanId: root.spanId,
    rootSpanName: root.name,
    rootSpanKind: kindOf(root),
    startTime,
    endTime,
    durationInNanos: Math.max(0, nanosBetween(startTime, endTime)),
    spanCount: spans.length,
    tokenUsage: { inputTokens, outputTokens, totalTokens },
    status: { errorCount: spans.filter((s) => s.status === 'ERROR').length },
    input: parts.input ?? ioOf(root, 'input') ?? ioOf(agents[0], 'input') ?? null,
    output: parts.output ?? ioOf(root, 'output') ?? ioOf(agents.at(-1), 'output') ?? null,
    spans: ordered.map((s) => (s === root ? { ...s, parentSpanId: null } : s)),
    ...(parts.taskId === undefined ? {} : { taskId: parts.taskId }),
    ...(parts.trialId === undefined ? {} : { trialId: parts.trialId }),
  }
  const parsed = FullTrace.safeParse(candidate)
  if (parsed.success) return { ok: true, trace: parsed.data }
  const issue = parsed.error.issues[0]
  return {
    ok: false,
    traceId,
    reason: `not a valid trace${issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`,
  }
}

/** Whether a trace belongs to the window: it started in [start, end). */
export function startsInWindow(startTime: string, window: MonitorWindow): boolean {
  const ms = Date.parse(startTime)
  return ms >= window.start.getTime() && ms < window.end.getTime()
}

function kindOf(span: AmpSpan): string {
  const kind = span.ampAttributes['kind']
  return typeof kind === 'string' ? kind : 'unknown'
}

function ioOf(span: AmpSpan | undefined, key: 'input' | 'output'): unknown {
  const value = span?.ampAttributes[key]
  return value === undefined || value === null ? undefined : value
}

function usageOf(span: AmpSpan): { inputTokens: number; outputTokens: number; totalTokens: number } {
  const data = span.ampAttributes['data']
  const usage =
    data !== null && typeof data === 'object' ? (data as Record<string, unknown>)['tokenUsage'] : undefined
  const u = usage !== null && typeof usage === 'object' ? (usage as Record<string, unknown>) : {}
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0)
  return {
    inputTokens: n(u['inputTokens']),
    outputTokens: n(u['outputTokens']),
    totalTokens: n(u['totalTokens']),
  }
}

function earliest(spans: readonly AmpSpan[]): AmpSpan | undefined {
  let best: AmpSpan | undefined
  for (const span of spans) if (!best || compareTimes(span.startTime, best.startTime) < 0) best = span
  return best
}

/** ISO times compared to the nanosecond where both carry nine digits (ours do), else to the millisecond. */
function compareTimes(x: string, y: string): number {
  const d = Date.parse(x) - Date.parse(y)
  if (d !== 0 || Number.isNaN(d)) return Number.isNaN(d) ? 0 : d
  return fraction(x) - fraction(y)
}

function nanosBetween(start: string, end: string): number {
  return (Date.parse(end) - Date.parse(start)) * 1_000_000 + (fraction(end) - fraction(start))
}

/** The sub-millisecond nanoseconds an ISO time carries (digits 4 to 9 of its fraction). */
function fraction(iso: string): number {
  const match = /\.\d{3}(\d{1,6})/.exec(iso)
  return match ? Number(match[1]!.padEnd(6, '0')) : 0
}
