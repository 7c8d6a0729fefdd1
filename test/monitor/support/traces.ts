import type { FullTrace } from '../../../src/core/index.ts'

/**
 * Production traces in the seed's FullTrace shape, our own data: a root agent span, an LLM call under it and a tool
 * call. `answer` is what the agent replied (the in-test scorer checks it contains "ok").
 */
export function productionTrace(
  n: number,
  options: { answer?: string; start?: Date; durationMs?: number } = {},
): FullTrace {
  const traceId = `trace-${String(n).padStart(5, '0')}`
  const start = options.start ?? new Date(Date.UTC(2026, 0, 31, 0, 0, n % 3600))
  const end = new Date(start.getTime() + (options.durationMs ?? 1500))
  const at = (ms: number) => new Date(start.getTime() + ms).toISOString()
  const span = (id: string, name: string, kind: string, from: number, to: number, parent: string | null) => ({
    traceId,
    spanId: `${traceId}-${id}`,
    parentSpanId: parent === null ? null : `${traceId}-${parent}`,
    name,
    service: 'support-agent',
    startTime: at(from),
    endTime: at(to),
    durationInNanos: (to - from) * 1e6,
    kind: 'INTERNAL',
    status: 'OK',
    attributes: {},
    ampAttributes: { kind },
  })
  return {
    traceId,
    rootSpanId: `${traceId}-root`,
    rootSpanName: 'support-agent',
    startTime: start.toISOString(),
    endTime: end.toISOString(),
    spans: [
      span('root', 'support-agent', 'agent', 0, 1500, null),
      span('llm', 'chat gpt-4o-mini', 'llm', 10, 700, 'root'),
      span('tool', 'lookup_order', 'tool', 710, 900, 'root'),
    ],
    tokenUsage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    status: { errorCount: 0 },
    input: `where is order ${n}?`,
    output: options.answer ?? (n % 4 === 0 ? 'sorry, I do not know' : `order ${n} is ok and on its way`),
  }
}

export const WINDOW = {
  start: new Date('2026-01-31T00:00:00Z'),
  end: new Date('2026-01-31T01:00:00Z'),
}
