import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { AgentEvalOpsError, OtlpTraceRequest, SPAN, SPANS_FILE, type OtlpSpan } from '../core/index.ts'

/*
 * spans.jsonl is OTLP JSON in the layout of the OpenTelemetry Collector's file exporter: every line is one
 * ExportTraceServiceRequest (`{"resourceSpans":[…]}`), the very body an OTLP/HTTP JSON export POSTs. The
 * run-level spans make the first line and each trial's spans a line of their own, so the file streams and a large
 * run never makes one giant line; the same lines are what gets exported.
 */

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

/** spans.jsonl text as the file holds it: every line followed by a newline. */
export function otlpLinesText(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('')
}

/**
 * The requests of spans.jsonl text, each line checked against the shape readers rely on (ids, names, times,
 * attributes). Blank lines are skipped. Throws BUNDLE_INVALID naming the first bad line.
 */
export function parseOtlpLines(text: string, file = SPANS_FILE): OtlpTraceRequest[] {
  const requests: OtlpTraceRequest[] = []
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return
    const location = { file, line: i + 1 }
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (e) {
      throw new AgentEvalOpsError('BUNDLE_INVALID', `not JSON: ${(e as Error).message}`, { location })
    }
    const parsed = OtlpTraceRequest.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
      throw new AgentEvalOpsError(
        'BUNDLE_INVALID',
        `not an OTLP ExportTraceServiceRequest${where}: ${issue?.message ?? 'invalid'}`,
        { location },
      )
    }
    requests.push(parsed.data)
  })
  return requests
}

/** Every span of the requests, flattened (for lookups by name or id). */
export function otlpSpans(requests: readonly OtlpTraceRequest[]): OtlpSpan[] {
  return requests.flatMap((r) => r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)))
}
