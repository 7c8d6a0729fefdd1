import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  IndividualScore,
  ScoresPayload,
  type FullTrace,
  type MonitorEvaluatorSpec,
  type MonitorJudgeSettings,
} from '../../../src/core/index.ts'
import { parseMonitorEvaluators } from '../../../src/evaluators/index.ts'
import { aggregateScores, createTraceScorer, scoreId } from '../../../src/monitor/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import { FakeMessagesServer, replies, textReply } from '../../support/fake-messages-server.ts'
import { fixtureTraces } from './fixtures.ts'

const NEVER = new AbortController().signal

const EVALUATORS = JSON.stringify([
  {
    identifier: 'tool-use',
    displayName: 'Valid tool calls',
  },
  { identifier: 'trace-quality', displayName: 'Trace quality' },
  { identifier: 'latency', displayName: 'Agent latency', level: 'agent', config: { max_latency_ms: 6000 } },
  {
    identifier: 'contains',
    displayName: 'Mentions the flight',
    level: 'llm',
    config: { expected: 'TP1940' },
  },
])

function scorerFor(
  specs: MonitorEvaluatorSpec[],
  store = new MemoryTraceStore(),
  judge?: MonitorJudgeSettings,
) {
  return createTraceScorer({
    specs,
    monitorName: 'trip-monitor',
    runId: 'window-2026-03-14',
    traceStore: store,
    ...(judge ? { judge } : {}),
  })
}

describe('createTraceScorer: a production trace through the engine re-score path', () => {
  it('scores each level: one trace score per evaluator, one per agent span, one per llm span', async () => {
    const { trip } = fixtureTraces()
    const specs = parseMonitorEvaluators(EVALUATORS, '--evaluators')
    const scored = await scorerFor(specs)(trip, NEVER)
    const byName = (name: string) => scored.scores.filter((s) => s.individual.evaluatorName === name)

    expect(byName('Valid tool calls')).toHaveLength(1)
    // Checked against the tools the agent span lists: both calls fit their schemas.
    expect(byName('Valid tool calls')[0]?.individual).toMatchObject({ level: 'trace', score: 1 })
    expect(byName('Trace quality')[0]?.individual).toMatchObject({ level: 'trace', score: 1 })
    expect(byName('Trace quality')[0]?.spanId).toBe(trip.rootSpanId)

    const latency = byName('Agent latency')
    expect(latency).toHaveLength(1)
    expect(latency[0]?.individual).toMatchObject({
      level: 'agent',
      score: 0,
      traceId: trip.traceId,
      traceStartTime: trip.startTime,
      spanContext: { spanId: 'b7ad6b7169203331', agentName: 'planner' },
    })
    expect(latency[0]?.passed).toBe(false)

    const llm = byName('Mentions the flight')
    expect(llm.map((s) => [s.individual.spanContext, s.individual.score])).toEqual([
      [{ spanId: 'c1d2e3f405060708', agentName: 'planner', model: 'acme-chat-1', vendor: 'acme' }, 0],
      [
        { spanId: 'e1d2e3f405060708', agentName: 'planner', model: 'claude-sonnet-4-6', vendor: 'anthropic' },
        1,
      ],
      [{ spanId: 'a2d2e3f405060708', agentName: 'planner', model: 'acme-chat-1', vendor: 'acme' }, 1],
    ])
    for (const s of scored.scores) expect(IndividualScore.safeParse(s.individual).success).toBe(true)
  })

  it('finds what trace-quality finds in an eval trial: three identical lookups are a repeated call', async () => {
    const { loop } = fixtureTraces()
    const specs = parseMonitorEvaluators(EVALUATORS, '--evaluators')
    const scored = await scorerFor(specs)(loop, NEVER)
    const quality = scored.scores.find((s) => s.individual.evaluatorName === 'Trace quality')
    expect(quality?.passed).toBe(false)
    expect(quality?.individual.score).toBeLessThan(1)
    expect(quality?.individual.explanation).toMatch(/repeated_call/)
  })

  it('keeps the trace-level trial for the window bundle: a re-scored record, its events in the trace store', async () => {
    const { trip } = fixtureTraces()
    const store = new MemoryTraceStore()
    const scored = await scorerFor(parseMonitorEvaluators(EVALUATORS, '--evaluators'), store)(trip, NEVER)
    expect(scored.traceId).toBe(trip.traceId)
    expect(scored.record).toMatchObject({
      runId: 'window-2026-03-14',
      benchmark: { id: 'trip-monitor' },
      taskId: trip.traceId,
      outcome: 'passed',
      reusedFrom: { runId: `trace:${trip.traceId}`, mode: 'rescored' },
      runner: { name: 'planner', kind: 'monitor' },
    })
    expect(scored.record.scores.map((s) => s.evaluatorId)).toEqual(['Valid tool calls', 'Trace quality'])
    const stored = await store.read(scored.record.tracePath)
    expect(stored.map((e) => e.kind)).toEqual(scored.events.map((e) => e.kind))
    expect(stored.filter((e) => e.kind === 'evaluator.score')).toHaveLength(2)
    // Span-level trials are scored in memory: only the trace's own trial reaches the bundle's store.
    expect(store.paths()).toHaveLength(1)
  })

  it('gives the same score ids on a rerun, and new ones when an evaluator config changes', async () => {
    const { trip } = fixtureTraces()
    const specs = parseMonitorEvaluators(EVALUATORS, '--evaluators')
    const first = await scorerFor(specs)(trip, NEVER)
    const again = await scorerFor(parseMonitorEvaluators(EVALUATORS, '--evaluators'))(trip, NEVER)
    expect(again.scores.map((s) => s.id)).toEqual(first.scores.map((s) => s.id))
    expect(new Set(first.scores.map((s) => s.id)).size).toBe(first.scores.length)
    const quality = first.scores.find((s) => s.individual.evaluatorName === 'Trace quality')!
    const spec = specs.find((s) => s.displayName === 'Trace quality')!
    expect(quality.id).toBe(scoreId(trip.traceId, 'trace-quality', spec.version))
    const llm = first.scores.find((s) => s.individual.level === 'llm')!
    expect(llm.id).toBe(scoreId(llm.spanId, 'contains', specs[3]!.version))

    const changed = EVALUATORS.replace('"max_latency_ms":6000', '"max_latency_ms":7000')
    const other = await scorerFor(parseMonitorEvaluators(changed, '--evaluators'))(trip, NEVER)
    const latencyId = (s: typeof first) => s.scores.find((x) => x.individual.level === 'agent')!.id
    expect(latencyId(other)).not.toBe(latencyId(first))
    expect(other.scores.find((x) => x.individual.evaluatorName === 'Trace quality')!.id).toBe(quality.id)
  })

  it('skips every evaluator of a trace whose run was interrupted, saying so', async () => {
    const { loop } = fixtureTraces()
    const root = loop.spans[0]!
    const interrupted: FullTrace = {
      ...loop,
      spans: [
        { ...root, attributes: { 'agentevalops.agent.terminated_by': 'interrupted' } },
        ...loop.spans.slice(1),
      ],
    }
    const scored = await scorerFor(parseMonitorEvaluators(EVALUATORS, '--evaluators'))(interrupted, NEVER)
    const traceLevel = scored.scores.filter((s) => s.individual.level === 'trace')
    expect(traceLevel).toHaveLength(2)
    for (const s of traceLevel) {
      expect(s.individual.score).toBeUndefined()
      expect(s.individual.skipReason).toMatch(/interrupted/)
      expect(IndividualScore.safeParse(s.individual).success).toBe(true)
    }
    expect(scored.record.outcome).toBe('interrupted')
  })

  it('scores a trace without spans: its input and output are still a trial', async () => {
    const { trip } = fixtureTraces()
    const bare: FullTrace = { ...trip, spans: [] }
    const specs = parseMonitorEvaluators(
      '[{"identifier":"contains","displayName":"Flight","config":{"expected":"TP1940"}}]',
      '--evaluators',
    )
    const scored = await scorerFor(specs)(bare, NEVER)
    expect(scored.scores.map((s) => s.individual.score)).toEqual([1])
    expect(scored.events.map((e) => e.kind)).toEqual([
      'agent.final_answer',
      'agent.terminal',
      'evaluator.score',
    ])
  })

  it('aggregates into a payload the seed publisher accepts', async () => {
    const { trip, loop, timeout } = fixtureTraces()
    const specs = parseMonitorEvaluators(EVALUATORS, '--evaluators')
    const score = scorerFor(specs)
    const all = []
    for (const t of [trip, loop, timeout] as FullTrace[]) all.push(...(await score(t, NEVER)).scores)
    const aggregated = aggregateScores(all, specs, new Map([['*', 1]]))
    const payload = ScoresPayload.parse({
      individualScores: all.map((s) => s.individual),
      aggregatedScores: aggregated,
    })
    const quality = payload.aggregatedScores.find((a) => a.evaluatorName === 'Trace quality')!
    expect(quality).toMatchObject({ identifier: 'trace-quality', level: 'trace', count: 3, skippedCount: 1 })
    expect(quality.aggregations['pass_rate']).toBeCloseTo(2 / 3, 12)
  })
})

describe('llm_judge entries: our LLM judge, its prompt template filled per trace', () => {
  let server: FakeMessagesServer
  beforeEach(async () => {
    server = await FakeMessagesServer.start({ apiKey: 'test-key-3c1f' })
  })
  afterEach(async () => {
    await server.close()
  })

  const JUDGE = JSON.stringify([
    {
      identifier: 'helpfulness',
      displayName: 'Helpful',
      type: 'llm_judge',
      config: {
        prompt_template: 'Task: {input}\nReply: {output}\n{criteria_section}\nIs the reply helpful? {{json}}',
        criteria: 'names a concrete flight',
        model: 'claude-haiku-4-5',
      },
    },
  ])

  it('judges through the gateway it is given, with the template filled from the trace', async () => {
    const { trip } = fixtureTraces()
    server.enqueue(
      textReply(JSON.stringify({ score: 0.9, passed: true, reasoning: 'Names TP1940.', citations: [] }), {
        input_tokens: 400,
        output_tokens: 20,
      }),
    )
    const specs = parseMonitorEvaluators(JUDGE, '--evaluators')
    const scored = await scorerFor(specs, new MemoryTraceStore(), {
      baseURL: server.url,
      apiKey: 'test-key-3c1f',
    })(trip, NEVER)
    expect(scored.scores).toHaveLength(1)
    expect(scored.scores[0]?.individual).toMatchObject({ evaluatorName: 'Helpful', score: 0.9 })
    expect(scored.scores[0]?.costUsd).toBeGreaterThan(0)
    const sent = JSON.stringify(server.messageRequests[0]?.body)
    expect(sent).toContain('Task: Plan a weekend in Porto from Lisbon')
    expect(sent).toContain('Reply: Take flight TP1940')
    expect(sent).toContain('Evaluation Criteria: names a concrete flight')
    expect(sent).toContain('{json}')
    expect(scored.events.some((e) => e.kind === 'evaluator.model_call')).toBe(true)
  })

  it('a judge that cannot judge gives a skipReason, never a score', async () => {
    const { trip } = fixtureTraces()
    server.enqueue(replies.badRequest('model not allowed'))
    const specs = parseMonitorEvaluators(JUDGE, '--evaluators')
    const scored = await scorerFor(specs, new MemoryTraceStore(), {
      baseURL: server.url,
      apiKey: 'test-key-3c1f',
    })(trip, NEVER)
    const individual = scored.scores[0]!.individual
    expect(individual.score).toBeUndefined()
    expect(individual.skipReason).toMatch(/^could not judge: /)
    expect(individual.skipReason).not.toContain('test-key-3c1f')
    expect(IndividualScore.safeParse(individual).success).toBe(true)
  })
})
