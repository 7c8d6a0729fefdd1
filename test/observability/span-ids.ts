import type { IdGenerator } from '@opentelemetry/sdk-trace-base'
import type { SpanIds } from '../../src/observability/index.ts'

/**
 * Ids counted up from 1: given to both the direct writer and the OpenTelemetry SDK, the two outputs can be compared
 * byte for byte (both take one span id per span, parents first, and one trace id per run).
 */
export function countingIds(): SpanIds & IdGenerator {
  let trace = 0
  let span = 0
  const traceId = () => (++trace).toString(16).padStart(32, '0')
  const spanId = () => (++span).toString(16).padStart(16, '0')
  return { traceId, spanId, generateTraceId: traceId, generateSpanId: spanId }
}

/** The lines with every id replaced by its order of first appearance: random ids compared by the tree they form. */
export function normaliseIds(lines: readonly string[]): string[] {
  const seen = new Map<string, string>()
  const rename = (id: string, width: number) => {
    let name = seen.get(id)
    if (name === undefined) {
      name = `id${seen.size}`.padStart(width, '_')
      seen.set(id, name)
    }
    return name
  }
  return lines.map((line) =>
    line.replace(/"(traceId|spanId|parentSpanId)":"([0-9a-f]+)"/g, (_, key: string, id: string) => {
      return `"${key}":"${rename(id, id.length)}"`
    }),
  )
}
