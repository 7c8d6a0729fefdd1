import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { AgentEvalOpsError, OtlpTraceRequest, SPANS_FILE, type OtlpSpan } from '../core/index.ts'

/*
 * spans.jsonl is OTLP JSON in the layout of the OpenTelemetry Collector's file exporter: every line is one
 * ExportTraceServiceRequest (`{"resourceSpans":[…]}`), the very body an OTLP/HTTP JSON export POSTs. The
 * run-level spans make one line and each trial's spans a line of their own, so the file streams and a large run
 * never makes one giant line; the same lines are what gets exported. The lines are written by run-spans.ts.
 */

/** spans.jsonl text as the file holds it: every line followed by a newline. */
export function otlpLinesText(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('')
}

/** The non-blank lines of a spans file, read as they are needed (for exportOtlp). */
export async function* readOtlpLines(path: string): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
  for await (const line of lines) if (line.trim() !== '') yield line
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
