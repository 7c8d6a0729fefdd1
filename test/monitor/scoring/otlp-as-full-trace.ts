import { FullTrace, type OtlpSpan } from '../../../src/core/index.ts'

/*
 * A stand-in for the sources part's OTLP mapping, written to the mapping documented at the top of
 * src/monitor/scoring/trace-trial.ts, so the round trip of our own spans.jsonl can be checked here: GenAI semconv
 * attributes → ampAttributes, OTLP nanosecond times → ISO times with nanoseconds, the eval.task span as the root.
 */

type Attrs = Record<string, unknown>

function anyValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return undefined
  const o = v as Record<string, unknown>
  if ('stringValue' in o) return o['stringValue']
  if ('intValue' in o) return Number(o['intValue'])
  if ('doubleValue' in o) return o['doubleValue']
  if ('boolValue' in o) return o['boolValue']
  if ('arrayValue' in o) {
    const values = (o['arrayValue'] as { values?: unknown[] }).values ?? []
    return values.map(anyValue)
  }
  return undefined
}

function attrsOf(span: OtlpSpan): Attrs {
  return Object.fromEntries((span.attributes ?? []).map((kv) => [kv.key, anyValue(kv.value)]))
}

function isoOf(nanos: string | number): string {
  const n = BigInt(nanos)
  const ms = Number(n / 1_000_000n)
  const rest = String(n % 1_000_000_000n).padStart(9, '0')
  return `${new Date(ms).toISOString().slice(0, 19)}.${rest}Z`
}

const KIND: Record<string, string> = { chat: 'llm', execute_tool: 'tool', invoke_agent: 'agent' }

/** The subtree under the `eval.task` span of one trial, as the traces service would export it. */
export function otlpAsFullTrace(spans: readonly OtlpSpan[]): FullTrace {
  const task = spans.find((s) => s.name === 'eval.task')
  if (!task) throw new Error('no eval.task span')
  const under = new Set([task.spanId])
  let grew = true
  while (grew) {
    grew = false
    for (const s of spans) {
      if (s.parentSpanId && under.has(s.parentSpanId) && !under.has(s.spanId)) {
        under.add(s.spanId)
        grew = true
      }
    }
  }
  const mine = spans.filter((s) => under.has(s.spanId))
  const amp = mine.map((s) => {
    const a = attrsOf(s)
    const kind = KIND[String(a['gen_ai.operation.name'])] ?? 'chain'
    const failed = s.status?.code === 2
    const usage =
      a['gen_ai.usage.input_tokens'] !== undefined || a['gen_ai.usage.output_tokens'] !== undefined
        ? {
            tokenUsage: {
              inputTokens: Number(a['gen_ai.usage.input_tokens'] ?? 0),
              outputTokens: Number(a['gen_ai.usage.output_tokens'] ?? 0),
            },
          }
        : {}
    const ampAttributes =
      kind === 'tool'
        ? {
            kind,
            input: a['gen_ai.tool.call.arguments'],
            output: a['gen_ai.tool.call.result'],
            data: { name: a['gen_ai.tool.name'] },
            status: { error: failed },
          }
        : kind === 'llm'
          ? {
              kind,
              output: a['gen_ai.output.messages'],
              data: { model: a['gen_ai.request.model'], ...usage },
              status: { error: failed },
            }
          : kind === 'agent'
            ? { kind, output: a['gen_ai.output.messages'], data: { name: a['gen_ai.agent.name'] } }
            : { kind }
    return {
      traceId: s.traceId,
      spanId: s.spanId,
      parentSpanId: s.spanId === task.spanId ? null : s.parentSpanId,
      name: s.name,
      service: 'agentevalops',
      startTime: isoOf(s.startTimeUnixNano),
      endTime: isoOf(s.endTimeUnixNano),
      durationInNanos: Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)),
      kind: 'INTERNAL',
      status: failed ? 'ERROR' : 'UNSET',
      attributes: a,
      ampAttributes,
    }
  })
  return FullTrace.parse({
    traceId: task.traceId,
    rootSpanId: task.spanId,
    rootSpanName: task.name,
    startTime: isoOf(task.startTimeUnixNano),
    endTime: isoOf(task.endTimeUnixNano),
    spans: amp,
    input: null,
    output: null,
  })
}
