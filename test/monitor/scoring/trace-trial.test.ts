import { describe, expect, it } from 'vitest'
import { TraceEvent, type AmpSpan, type FullTrace } from '../../../src/core/index.ts'
import { costOf } from '../../../src/models/index.ts'
import { monitorBenchmark, traceTrial } from '../../../src/monitor/index.ts'
import { fixtureTraces } from './fixtures.ts'

const benchmark = monitorBenchmark('trip-monitor')
const ids = (taskId: string) => ({ runId: 'window-1', benchmark, taskId })

function spanNamed(trace: FullTrace, spanId: string): AmpSpan {
  const span = trace.spans.find((s) => s.spanId === spanId)
  if (!span) throw new Error(`no span ${spanId}`)
  return span
}

describe('traceTrial: a production trace as a finished trial', () => {
  it('maps llm spans to model calls and tool spans to calls and results, in the order they happened', () => {
    const { trip } = fixtureTraces()
    const trial = traceTrial(trip, { level: 'trace' }, ids(trip.traceId))
    for (const e of trial.events) expect(TraceEvent.safeParse(e).success).toBe(true)
    expect(trial.events.map((e) => e.kind)).toEqual([
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
    ])
    expect(trial.events.map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    const [first, call, result, , hotel, failed, last, answer] = trial.events
    expect(first).toMatchObject({
      payload: {
        model: 'acme-chat-1',
        inputTokens: 120,
        outputTokens: 30,
        text: 'Let me search flights from LIS to OPO.',
      },
      tokensDelta: 150,
      // No price for acme-chat-1: cost 0, never a guess.
      costDeltaUsd: 0,
      spanId: 'c1d2e3f405060708',
    })
    // Arguments and results written as JSON text are read as the JSON they hold.
    expect(call?.payload).toEqual({
      tool: 'search_flights',
      args: { from: 'LIS', to: 'OPO' },
      callId: 'd1d2e3f405060708',
    })
    expect(result?.payload).toEqual({
      tool: 'search_flights',
      result: [{ flight: 'TP1940', departs: '09:05' }],
      callId: 'd1d2e3f405060708',
    })
    expect(trial.events[3]?.costDeltaUsd).toBe(
      costOf('claude-sonnet-4-6', { input_tokens: 200, output_tokens: 50 }),
    )
    expect(hotel?.payload).toMatchObject({ tool: 'book_hotel', args: { city: 'Porto', nights: 2 } })
    expect(failed?.payload).toEqual({
      tool: 'book_hotel',
      result: 'no rooms left at Ribeira',
      callId: 'f1d2e3f405060708',
      isError: true,
    })
    // GenAI semconv messages: their text parts.
    expect((last?.payload as { text?: string }).text).toContain('pick another one')
    expect(answer?.payload).toEqual({ answer: trip.output })
  })

  it('makes the task from the trace input and the agent span, and the record the engine re-scores from', () => {
    const { trip } = fixtureTraces()
    const trial = traceTrial(trip, { level: 'trace' }, ids(trip.traceId))
    expect(trial.task).toMatchObject({
      id: trip.traceId,
      benchmark: 'trip-monitor',
      prompt: 'Plan a weekend in Porto from Lisbon',
    })
    expect(trial.task.tools?.map((t) => t.name)).toEqual(['search_flights', 'book_hotel'])
    expect(trial.task.tools?.[0]?.inputSchema).toMatchObject({ required: ['from', 'to'] })
    expect(trial.agentName).toBe('planner')
    // A tool that failed is a result the agent saw, not a failed run.
    expect(trial.from.result).toMatchObject({
      terminatedBy: 'completed',
      success: true,
      error: null,
      finalAnswer: trip.output,
      turns: 3,
      totalTokens: 150 + 250 + 340,
      wallSeconds: 6.8,
    })
    expect(trial.from.result?.totalCostUsd).toBeCloseTo(
      costOf('claude-sonnet-4-6', { input_tokens: 200, output_tokens: 50 })!,
      12,
    )
    expect(trial.events.at(-1)?.payload).toMatchObject({ terminatedBy: 'completed', success: true })
  })

  it('gives a root that failed its terminatedBy: a timeout is limit_time; a failed model call is not a turn', () => {
    const { timeout } = fixtureTraces()
    const trial = traceTrial(timeout, { level: 'trace' }, ids(timeout.traceId))
    expect(trial.from.result).toMatchObject({
      terminatedBy: 'limit_time',
      success: false,
      error: 'upstream model timed out after 30 s',
      finalAnswer: null,
      turns: 0,
      totalTokens: 0,
    })
    expect(trial.from.outcome).toBe('limit_exceeded')
    expect(trial.events.map((e) => e.kind)).toEqual(['agent.model_call', 'agent.terminal'])
    expect(trial.events[0]).toMatchObject({
      payload: { status: 'error', error: 'timed out' },
      tokensDelta: 0,
    })
  })

  it('names the termination our own spans recorded (agentevalops.agent.terminated_by)', () => {
    const { loop } = fixtureTraces()
    const root = loop.spans[0]!
    const limited: FullTrace = {
      ...loop,
      spans: [
        { ...root, attributes: { 'agentevalops.agent.terminated_by': 'limit_turns' } },
        ...loop.spans.slice(1),
      ],
    }
    expect(traceTrial(limited, { level: 'trace' }, ids(loop.traceId)).from.result?.terminatedBy).toBe(
      'limit_turns',
    )
  })

  it('orders by time to the microsecond, whatever order the spans were listed in', () => {
    const { loop } = fixtureTraces()
    const [root, ...rest] = loop.spans
    const close = (id: string, start: string, end: string, tool: string): AmpSpan => ({
      ...rest[1]!,
      spanId: id,
      startTime: start,
      endTime: end,
      ampAttributes: { kind: 'tool', input: {}, output: tool, data: { name: tool } },
    })
    const trace: FullTrace = {
      ...loop,
      spans: [
        root!,
        close('aaaaaaaaaaaaaa02', '2026-03-14T10:00:00.000200Z', '2026-03-14T10:00:00.000300Z', 'second'),
        close('aaaaaaaaaaaaaa01', '2026-03-14T10:00:00.000100Z', '2026-03-14T10:00:00.000150Z', 'first'),
      ],
    }
    const calls = traceTrial(trace, { level: 'trace' }, ids(loop.traceId)).events.filter(
      (e) => e.kind === 'agent.tool_call',
    )
    expect(calls.map((e) => (e.payload as { tool: string }).tool)).toEqual(['first', 'second'])
  })

  it('an agent target is the subtree under its span; an llm target its one call', () => {
    const { trip } = fixtureTraces()
    const agent = spanNamed(trip, 'b7ad6b7169203331')
    const agentTrial = traceTrial(
      trip,
      { level: 'agent', span: agent },
      ids(`${trip.traceId}/${agent.spanId}`),
    )
    expect(agentTrial.events.filter((e) => e.kind === 'agent.tool_call')).toHaveLength(2)
    expect(agentTrial.task.id).toBe(`${trip.traceId}/b7ad6b7169203331`)
    expect(agentTrial.from.result?.wallSeconds).toBeCloseTo(6.6, 9)

    const llm = spanNamed(trip, 'e1d2e3f405060708')
    const llmTrial = traceTrial(trip, { level: 'llm', span: llm }, ids(`${trip.traceId}/${llm.spanId}`))
    expect(llmTrial.events.map((e) => e.kind)).toEqual([
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
    ])
    expect(llmTrial.from.result?.finalAnswer).toBe(
      'Flight TP1940 departs 09:05. Booking the Ribeira hotel next.',
    )
    expect(llmTrial.agentName).toBe('planner')
  })

  it('gives span ids that are not 16 hex digits a stable stand-in', () => {
    const { loop } = fixtureTraces()
    const renamed: FullTrace = {
      ...loop,
      spans: loop.spans.map((s, i) => ({ ...s, spanId: i === 1 ? 'obs-7f3a' : s.spanId })),
    }
    const a = traceTrial(renamed, { level: 'trace' }, ids(loop.traceId)).events[0]!
    const b = traceTrial(renamed, { level: 'trace' }, ids(loop.traceId)).events[0]!
    expect(a.spanId).toMatch(/^[0-9a-f]{16}$/)
    expect(a.spanId).toBe(b.spanId)
  })
})
