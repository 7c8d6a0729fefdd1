/**
 * FullTrace fixtures in the traces service's export shape (a chain root, an agent span, an LLM call and a tool
 * call under it), written for these tests.
 */
const T0 = Date.parse('2026-03-04T10:00:00.000Z')

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export function traceId(i: number): string {
  return i.toString(16).padStart(32, '0')
}

export function fullTrace(i: number): Record<string, unknown> {
  const id = traceId(i)
  const start = T0 + i * 60_000
  const span = (n: number, name: string, parent: string | null, kind: Record<string, unknown>) => ({
    traceId: id,
    spanId: `${i.toString(16).padStart(12, '0')}${n.toString(16).padStart(4, '0')}`,
    parentSpanId: parent,
    name,
    service: 'booking-agent',
    kind: n === 0 ? 'SERVER' : 'INTERNAL',
    startTime: iso(start + n * 100),
    endTime: iso(start + 2_000 - n * 100),
    durationInNanos: (2_000 - 2 * n * 100) * 1_000_000,
    status: 'OK',
    attributes: { 'gen_ai.operation.name': name },
    ampAttributes: kind,
  })
  const root = span(0, 'booking.workflow', null, { kind: 'chain', input: `find a room #${i}` })
  const agent = span(1, 'invoke_agent booker', root.spanId, {
    kind: 'agent',
    input: `find a room #${i}`,
    output: `room ${i} booked`,
    data: { name: 'booker', model: 'claude-sonnet-4-5', vendor: 'anthropic' },
  })
  const llm = span(2, 'chat claude-sonnet-4-5', agent.spanId, {
    kind: 'llm',
    input: [{ role: 'user', content: `find a room #${i}` }],
    output: { content: '', toolCalls: [{ name: 'search_rooms', arguments: { city: 'Lisbon' } }] },
    data: {
      model: 'claude-sonnet-4-5',
      vendor: 'anthropic',
      tokenUsage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    },
  })
  const tool = span(3, 'execute_tool search_rooms', agent.spanId, {
    kind: 'tool',
    input: { city: 'Lisbon' },
    output: [`room ${i}`],
    data: { name: 'search_rooms' },
  })
  return {
    traceId: id,
    rootSpanId: root.spanId,
    rootSpanName: root.name,
    rootSpanKind: 'chain',
    startTime: root.startTime,
    endTime: root.endTime,
    durationInNanos: root.durationInNanos,
    spanCount: 4,
    tokenUsage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    status: { errorCount: 0 },
    input: `find a room #${i}`,
    output: `room ${i} booked`,
    spans: [root, agent, llm, tool],
  }
}
