import { createReadStream } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { AEO, AgentEvalOpsError, OtlpSpan, SPAN, type AmpSpan } from '../../core/index.ts'
import type { MonitorTraceSource, MonitorWindow, SourcedTrace } from '../contract.ts'
import { assembleTrace, startsInWindow } from './assemble-trace.ts'
import { isoFromUnixNanos, plainAttributes, unixNanosOf } from './otlp-values.ts'
import { ampAttributesOf, type SpanFacts } from './span-semantics.ts'

/*
 * Traces from OTLP JSON files: the OpenTelemetry Collector's file exporter (one ExportTraceServiceRequest per
 * line) and our own spans.jsonl (the same layout). Read line by line, spans grouped by trace id; a trace is handed
 * on once it is complete (its root is there and every parent it names), so memory holds the traces still open and
 * one page, not the file. What is open at the end of the files is handed on as it is (its earliest parentless span
 * the root); past MAX_OPEN_SPANS the oldest open traces are handed on early. Spans of a trace already handed on
 * that turn up later are dropped: the trace was scored without them.
 *
 * Our own spans.jsonl holds a whole eval run as one OTLP trace; each trial (`eval.task` and the spans under it)
 * becomes a FullTrace of its own, with the id `<OTLP trace id>-<eval.task span id>` (otlpIdsOf splits it), the task
 * id and trial number in taskId / trialId, and without the harness's spans (prepare, grade, evaluators, policy,
 * teardown): those judged the agent, they are not what it did.
 */

/** Default traces per page. */
export const OTLP_FILE_PAGE_SIZE = 10
/** Spans held for traces not yet complete before the oldest are handed on as they are. */
export const MAX_OPEN_SPANS = 200_000

export interface OtlpFileSourceOptions {
  /** A file, or a folder whose `*.json` / `*.jsonl` files are read in name order. */
  path: string
  pageSize?: number
  /** Spans held for open traces before the oldest are handed on as they are; default MAX_OPEN_SPANS. */
  maxOpenSpans?: number
}

const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const
const STATUS = ['UNSET', 'OK', 'ERROR'] as const
/** Our harness's spans: what judged the trial, not what the agent did. */
const HARNESS_SPANS = [SPAN.prepare, SPAN.grade, SPAN.evaluator, SPAN.policy, SPAN.teardown]
const RUN_LEVEL_SPANS: ReadonlySet<string> = new Set([SPAN.run, SPAN.score, SPAN.report])

/** The OTLP trace id (and the span id of our trial span) a FullTrace id of this source stands for. */
export function otlpIdsOf(traceId: string): { traceId: string; spanId?: string } | null {
  const match = /^([0-9a-f]{32})(?:-([0-9a-f]{16}))?$/i.exec(traceId)
  if (!match) return null
  return { traceId: match[1]!.toLowerCase(), ...(match[2] ? { spanId: match[2].toLowerCase() } : {}) }
}

export function createOtlpFileSource(options: OtlpFileSourceOptions): MonitorTraceSource {
  const pageSize = options.pageSize ?? OTLP_FILE_PAGE_SIZE
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new AgentEvalOpsError('USAGE', `OTLP file source: pageSize must be an integer ≥ 1, got ${pageSize}`)
  }
  return {
    description: `OTLP JSON files ${options.path}`,
    pages: (window, signal) =>
      readPages(options.path, pageSize, options.maxOpenSpans ?? MAX_OPEN_SPANS, window, signal),
  }
}

interface OpenTrace {
  traceId: string
  spans: AmpSpan[]
  rootSpanId?: string
  taskId?: string
  trialId?: string
  /** Why the trace cannot be used, once one of its spans was malformed. */
  invalid?: string
}

async function* readPages(
  path: string,
  pageSize: number,
  maxOpenSpans: number,
  window: MonitorWindow,
  signal: AbortSignal,
): AsyncGenerator<SourcedTrace[]> {
  const files = await filesOf(path)
  const open = new Map<string, OpenTrace>()
  const done = new Set<string>()
  let openSpans = 0
  const page: SourcedTrace[] = []

  const close = (trace: OpenTrace): void => {
    open.delete(trace.traceId)
    openSpans -= trace.spans.length
    done.add(trace.traceId)
    if (trace.invalid !== undefined) {
      page.push({ ok: false, traceId: trace.traceId, reason: trace.invalid })
      return
    }
    const item = assembleTrace(trace)
    if (!item.ok || startsInWindow(item.trace.startTime, window)) page.push(item)
  }

  for (const file of files) {
    const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })
    let lineNo = 0
    try {
      for await (const line of lines) {
        lineNo++
        if (line.trim() === '') continue
        const touched = readLine(line, `${file}:${lineNo}`, open, done, page)
        for (const trace of touched) {
          openSpans += trace.added
          if (isComplete(trace.trace)) close(trace.trace)
        }
        while (openSpans > maxOpenSpans && open.size > 0) close(open.values().next().value!)
        while (page.length >= pageSize) {
          yield page.splice(0, pageSize)
          if (signal.aborted) return
        }
      }
    } catch (e) {
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `could not read OTLP file ${file}: ${(e as Error).message}`,
        {
          hint: 'check that the file exists and is readable',
          cause: e,
        },
      )
    } finally {
      lines.close()
    }
  }
  for (const trace of [...open.values()]) close(trace)
  while (page.length > 0) {
    yield page.splice(0, pageSize)
    if (signal.aborted) return
  }
}

/** The files to read: the path itself, or a folder's JSON files in name order. */
async function filesOf(path: string): Promise<string[]> {
  let info
  try {
    info = await stat(path)
  } catch (e) {
    throw new AgentEvalOpsError('USAGE', `OTLP traces path ${path} does not exist`, {
      hint: 'pass a spans.jsonl, a collector file exporter output, or a folder of them',
      cause: e,
    })
  }
  if (!info.isDirectory()) return [path]
  const names = (await readdir(path)).filter((n) => /\.jsonl?$/i.test(n)).sort()
  return names.map((n) => join(path, n))
}

/**
 * Adds one line's spans to the open traces; returns the traces it added to (with how many spans). A line that is
 * not a request becomes a skipped item on the page; a malformed span marks its trace invalid.
 */
function readLine(
  line: string,
  where: string,
  open: Map<string, OpenTrace>,
  done: ReadonlySet<string>,
  page: SourcedTrace[],
): { trace: OpenTrace; added: number }[] {
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch (e) {
    page.push({ ok: false, traceId: null, reason: `${where}: not JSON (${(e as Error).message})` })
    return []
  }
  const resourceSpans = (json as { resourceSpans?: unknown } | null)?.resourceSpans
  if (!Array.isArray(resourceSpans)) {
    page.push({ ok: false, traceId: null, reason: `${where}: not an OTLP ExportTraceServiceRequest` })
    return []
  }
  const raw: { span: unknown; service: string }[] = []
  for (const rs of resourceSpans as unknown[]) {
    const r = (rs ?? {}) as { resource?: { attributes?: unknown }; scopeSpans?: unknown }
    const named = plainAttributes(r.resource?.attributes)['service.name']
    const service = typeof named === 'string' ? named : ''
    for (const ss of Array.isArray(r.scopeSpans) ? (r.scopeSpans as unknown[]) : []) {
      const spans = (ss as { spans?: unknown } | null)?.spans
      if (Array.isArray(spans)) for (const span of spans) raw.push({ span, service })
    }
  }

  const spans: { span: OtlpSpan; service: string }[] = []
  const touched = new Map<OpenTrace, number>()
  const invalidate = (traceId: string, reason: string): void => {
    const trace = openTrace(open, traceId)
    trace.invalid ??= reason
    touched.set(trace, touched.get(trace) ?? 0)
  }
  for (const { span, service } of raw) {
    const parsed = OtlpSpan.safeParse(span)
    if (parsed.success) {
      spans.push({ span: parsed.data, service })
      continue
    }
    const issue = parsed.error.issues[0]
    const reason = `${where}: malformed span${issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`
    const traceId = (span as { traceId?: unknown } | null)?.traceId
    if (typeof traceId === 'string' && traceId !== '') invalidate(traceId, reason)
    else page.push({ ok: false, traceId: null, reason })
  }

  // Our spans.jsonl: every span under an eval.task joins that trial's trace; the harness's subtrees are left out.
  // Span ids are unique within a trace only: keyed by both.
  const keyOf = (traceId: string, spanId: string): string => `${traceId}/${spanId}`
  const byId = new Map(spans.map((s) => [keyOf(s.span.traceId, s.span.spanId), s.span]))
  const groupOf = new Map<string, { key: string; task?: OtlpSpan } | null>()
  const resolve = (span: OtlpSpan, depth = 0): { key: string; task?: OtlpSpan } | null => {
    const key = keyOf(span.traceId, span.spanId)
    const known = groupOf.get(key)
    if (known !== undefined) return known
    let group: { key: string; task?: OtlpSpan } | null
    if (RUN_LEVEL_SPANS.has(span.name)) group = null
    else if (span.name === SPAN.task) group = { key: `${span.traceId}-${span.spanId}`, task: span }
    else if (HARNESS_SPANS.some((h) => span.name === h || span.name.startsWith(`${h} `))) group = null
    else {
      const parent = span.parentSpanId ? byId.get(keyOf(span.traceId, span.parentSpanId)) : undefined
      group = parent && depth < 1000 ? resolve(parent, depth + 1) : { key: span.traceId }
    }
    groupOf.set(key, group)
    return group
  }
  for (const { span, service } of spans) {
    const group = resolve(span)
    if (group === null || done.has(group.key)) continue
    const trace = openTrace(open, group.key)
    if (group.task) {
      const attributes = plainAttributes(group.task.attributes)
      trace.rootSpanId = group.task.spanId
      const taskId = attributes[AEO.taskId]
      if (typeof taskId === 'string') trace.taskId = taskId
      if (attributes[AEO.trial] !== undefined && attributes[AEO.trial] !== null) {
        trace.trialId = String(attributes[AEO.trial])
      }
    }
    trace.spans.push(ampSpanOf(span, service))
    touched.set(trace, (touched.get(trace) ?? 0) + 1)
  }
  return [...touched].map(([trace, added]) => ({ trace, added }))
}

function openTrace(open: Map<string, OpenTrace>, traceId: string): OpenTrace {
  let trace = open.get(traceId)
  if (!trace) open.set(traceId, (trace = { traceId, spans: [] }))
  return trace
}

/** Complete: a trial span is there (our format), or a parentless root and every parent any span names. */
function isComplete(trace: OpenTrace): boolean {
  if (trace.invalid !== undefined) return false
  const ids = new Set(trace.spans.map((s) => s.spanId))
  if (trace.rootSpanId !== undefined) {
    if (!ids.has(trace.rootSpanId)) return false
    return trace.spans.every(
      (s) => s.spanId === trace.rootSpanId || (s.parentSpanId && ids.has(s.parentSpanId)),
    )
  }
  let roots = 0
  for (const s of trace.spans) {
    if (!s.parentSpanId) roots++
    else if (!ids.has(s.parentSpanId)) return false
  }
  return roots === 1
}

function ampSpanOf(span: OtlpSpan, service: string): AmpSpan {
  const attributes = plainAttributes(span.attributes)
  const start = unixNanosOf(span.startTimeUnixNano) ?? 0n
  const end = unixNanosOf(span.endTimeUnixNano) ?? start
  const statusCode = span.status?.code ?? 0
  const facts: SpanFacts = {
    name: span.name,
    attributes,
    statusCode,
    statusMessage: span.status?.message,
    events: (span.events ?? []).map((e) => ({ name: e.name, attributes: plainAttributes(e.attributes) })),
  }
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ? span.parentSpanId : null,
    name: span.name,
    service,
    startTime: isoFromUnixNanos(start),
    endTime: isoFromUnixNanos(end < start ? start : end),
    durationInNanos: Number(end < start ? 0n : end - start),
    kind: SPAN_KINDS[span.kind ?? 0] ?? 'UNSPECIFIED',
    status: STATUS[statusCode] ?? 'UNSET',
    attributes,
    ampAttributes: ampAttributesOf(facts),
  }
}
