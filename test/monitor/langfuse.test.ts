import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { FullTrace, IndividualScore } from '../../src/core/index.ts'
import {
  createLangfusePublisher,
  createLangfuseSource,
  type MonitorScore,
  type MonitorScoreBatch,
  type SourcedTrace,
} from '../../src/monitor/index.ts'
import { streamedBatch } from './support/batch.ts'
import { startLangfuseFake, type FakeTrace, type LangfuseFake } from './langfuse-fake.ts'

let fake: LangfuseFake | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

const WINDOW = { start: new Date('2026-03-01T00:00:00Z'), end: new Date('2026-03-01T01:00:00Z') }
const at = (minute: number, second = 0) =>
  new Date(WINDOW.start.getTime() + minute * 60_000 + second * 1000).toISOString()
const FAST = { attempts: 3, baseDelayMs: 1 }

/** A support agent's trace as a Langfuse SDK logs it: a SPAN for the agent, a generation, a tool call. */
function supportTrace(i: number, minute: number): FakeTrace {
  const id = `trace-${String(i).padStart(3, '0')}`
  return {
    id,
    timestamp: at(minute),
    name: 'support-agent',
    input: { question: `where is order ${i}?` },
    output: `order ${i} ships tomorrow`,
    observations: [
      {
        id: `${id}-agent`,
        traceId: id,
        type: 'SPAN',
        name: 'agent',
        startTime: at(minute),
        endTime: at(minute, 3),
        level: 'DEFAULT',
        parentObservationId: null,
      },
      {
        id: `${id}-gen`,
        traceId: id,
        type: 'GENERATION',
        name: 'openai.chat',
        startTime: at(minute, 1),
        endTime: at(minute, 2),
        model: 'gpt-4o-mini',
        modelParameters: { temperature: 0.2 },
        input: [{ role: 'user', content: `where is order ${i}?` }],
        output: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call-1', type: 'function', function: { name: 'lookup_order', arguments: `{"id":${i}}` } },
          ],
        },
        usage: { input: 40, output: 9, total: 49, unit: 'TOKENS' },
        usageDetails: { input: 40, output: 9, total: 49 },
        level: 'DEFAULT',
        statusMessage: null,
        parentObservationId: `${id}-agent`,
      },
      {
        id: `${id}-tool`,
        traceId: id,
        type: 'TOOL',
        name: 'lookup_order',
        startTime: at(minute, 2),
        endTime: at(minute, 2),
        input: { id: i },
        output: { status: 'shipping' },
        level: i === 3 ? 'ERROR' : 'DEFAULT',
        statusMessage: i === 3 ? 'order service timed out' : null,
        parentObservationId: `${id}-agent`,
      },
    ],
  }
}

async function collect(source: ReturnType<typeof createLangfuseSource>) {
  const pages: (readonly SourcedTrace[])[] = []
  for await (const page of source.pages(WINDOW, new AbortController().signal)) pages.push(page)
  return pages
}

describe('createLangfuseSource', () => {
  it("lists a window's traces page by page with their observations, mapped to FullTraces", async () => {
    const inWindow = Array.from({ length: 25 }, (_, i) => supportTrace(i, i * 2))
    const outside = [supportTrace(900, -5), supportTrace(901, 61)]
    fake = await startLangfuseFake([...outside, ...inWindow])
    fake.malformed.add('trace-007')
    const source = createLangfuseSource({
      endpoint: fake.url,
      publicKey: fake.publicKey,
      secretKey: fake.secretKey,
      pageSize: 10,
      retry: FAST,
    })
    expect(source.description).toBe(`Langfuse ${fake.url}`)

    const pages = await collect(source)
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5])
    const lists = fake.requests.filter((r) => r.url.startsWith('/api/public/traces?'))
    expect(lists.map((r) => new URL(r.url, fake!.url).searchParams.get('page'))).toEqual(['1', '2', '3'])
    const query = new URL(lists[0]!.url, fake.url).searchParams
    expect(query.get('fromTimestamp')).toBe(WINDOW.start.toISOString())
    expect(query.get('toTimestamp')).toBe(WINDOW.end.toISOString())
    expect(query.get('orderBy')).toBe('timestamp.asc')
    expect(query.get('fields')).toBe('core')

    const items = pages.flat()
    const skipped = items.filter((i) => !i.ok)
    expect(skipped).toEqual([
      { ok: false, traceId: 'trace-007', reason: expect.stringMatching(/observations/) as string },
    ])
    const traces = items.flatMap((i) => (i.ok ? [i.trace] : []))
    expect(traces).toHaveLength(24)
    expect(traces.map((t) => t.traceId)).not.toContain('trace-900')

    const trace = traces.find((t) => t.traceId === 'trace-003') as FullTrace
    expect(trace.rootSpanId).toBe('trace-003')
    expect(trace.input).toEqual({ question: 'where is order 3?' })
    expect(trace.output).toBe('order 3 ships tomorrow')
    expect(trace.tokenUsage).toEqual({ inputTokens: 40, outputTokens: 9, totalTokens: 49 })
    expect(trace.status?.errorCount).toBe(1)
    const byId = new Map(trace.spans.map((s) => [s.spanId, s]))
    expect(byId.get('trace-003-agent')?.ampAttributes['kind']).toBe('agent')
    expect(byId.get('trace-003-agent')?.parentSpanId).toBe('trace-003')
    expect(byId.get('trace-003-gen')?.ampAttributes).toMatchObject({
      kind: 'llm',
      input: [{ role: 'user', content: 'where is order 3?' }],
      output: [
        { role: 'assistant', toolCalls: [{ id: 'call-1', name: 'lookup_order', arguments: '{"id":3}' }] },
      ],
      data: { model: 'gpt-4o-mini', temperature: 0.2, tokenUsage: { inputTokens: 40, outputTokens: 9 } },
    })
    expect(byId.get('trace-003-tool')?.ampAttributes).toMatchObject({
      kind: 'tool',
      input: '{"id":3}',
      output: '{"status":"shipping"}',
      data: { name: 'lookup_order' },
      status: { error: true },
      error: { message: 'order service timed out' },
    })
    expect(byId.get('trace-003-tool')?.status).toBe('ERROR')
  })

  it('told to stop in the middle of a page, hands on what it read and ends without an error', async () => {
    fake = await startLangfuseFake(Array.from({ length: 25 }, (_, i) => supportTrace(i, i * 2)))
    const controller = new AbortController()
    fake.held.add('trace-012')
    fake.onHeld = () => controller.abort()
    const source = createLangfuseSource({
      endpoint: fake.url,
      publicKey: fake.publicKey,
      secretKey: fake.secretKey,
      pageSize: 10,
      retry: FAST,
    })
    const pages: (readonly SourcedTrace[])[] = []
    for await (const page of source.pages(WINDOW, controller.signal)) pages.push(page)
    // Details are fetched a few at a time: those answered before the stop are kept, in list order, none after it.
    expect(pages[0]).toHaveLength(10)
    const after = pages
      .slice(1)
      .flat()
      .map((i) => (i.ok ? i.trace.traceId : null))
    expect(['trace-010', 'trace-011'].slice(0, after.length)).toEqual(after)
    expect(fake.requests.filter((r) => r.url.startsWith('/api/public/traces?'))).toHaveLength(2)
  })

  it('sends the keys as basic auth and names the endpoint, never the secret, when they are refused', async () => {
    fake = await startLangfuseFake([supportTrace(1, 1)])
    const source = createLangfuseSource({
      endpoint: fake.url,
      publicKey: fake.publicKey,
      secretKey: 'sk-lf-wrong-secret-999',
      retry: FAST,
    })
    const error = await collect(source).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    )
    expect(error?.code).toBe('INFRA_FAILURE')
    expect(error?.message).toContain(`${fake.url}/api/public/traces`)
    expect(error?.message).toMatch(/refused/)
    expect(error?.message).not.toContain('sk-lf-wrong-secret-999')
  })
})

function score(traceId: string, level: 'trace' | 'llm', value: number | null, spanId: string): MonitorScore {
  const identifier = level === 'trace' ? 'trace-quality' : 'answer-relevance'
  const individual: IndividualScore = {
    evaluatorName: level === 'trace' ? 'Trace quality' : 'Answer relevance',
    level,
    traceId,
    ...(value === null
      ? { skipReason: 'no output to judge' }
      : { score: value, explanation: `judged ${traceId}` }),
    ...(level === 'llm' ? { spanContext: { spanId, model: 'gpt-4o-mini' } } : {}),
  }
  const id = createHash('sha256').update([spanId, identifier, 'v1'].join('\0')).digest('hex')
  return { id, identifier, spanId, individual, costUsd: 0 }
}

function batchOf(scores: MonitorScore[]): MonitorScoreBatch {
  return streamedBatch({
    monitorId: 'mon-1',
    runId: 'run-1',
    monitorName: 'support-nightly',
    window: { start: WINDOW.start.toISOString(), end: WINDOW.end.toISOString() },
    scores,
    aggregated: [],
  })
}

describe('createLangfusePublisher', () => {
  it('posts each score with our id, so publishing the window again creates nothing twice', async () => {
    fake = await startLangfuseFake([])
    const publisher = createLangfusePublisher({
      endpoint: fake.url,
      publicKey: fake.publicKey,
      secretKey: fake.secretKey,
      retry: FAST,
    })
    const scores = [
      score('trace-001', 'trace', 0.8, 'trace-001'),
      score('trace-001', 'llm', 1, 'trace-001-gen'),
      score('trace-002', 'trace', null, 'trace-002'),
    ]
    await publisher.publish(batchOf(scores), new AbortController().signal)
    await publisher.publish(batchOf(scores), new AbortController().signal)

    const posts = fake.requests.filter((r) => r.method === 'POST')
    expect(posts).toHaveLength(4)
    expect([...fake.scores.keys()].sort()).toEqual([scores[0]!.id, scores[1]!.id].sort())
    expect(fake.scores.get(scores[0]!.id)).toEqual({
      id: scores[0]!.id,
      traceId: 'trace-001',
      name: 'Trace quality',
      value: 0.8,
      dataType: 'NUMERIC',
      comment: 'judged trace-001',
      metadata: {
        identifier: 'trace-quality',
        level: 'trace',
        monitorName: 'support-nightly',
        monitorId: 'mon-1',
        runId: 'run-1',
        window: { start: WINDOW.start.toISOString(), end: WINDOW.end.toISOString() },
      },
    })
    expect(fake.scores.get(scores[1]!.id)).toMatchObject({
      traceId: 'trace-001',
      observationId: 'trace-001-gen',
      value: 1,
    })
  })

  it('retries a 503 and a 429, and does not retry a 400', async () => {
    fake = await startLangfuseFake([])
    const publisher = createLangfusePublisher({
      endpoint: fake.url,
      publicKey: fake.publicKey,
      secretKey: fake.secretKey,
      retry: FAST,
    })
    fake.failNextScorePosts.push(503, 429)
    const one = [score('trace-001', 'trace', 0.5, 'trace-001')]
    await publisher.publish(batchOf(one), new AbortController().signal)
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(3)
    expect(fake.scores.size).toBe(1)

    fake.failNextScorePosts.push(400)
    const error = await publisher.publish(batchOf(one), new AbortController().signal).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    )
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(4)
    expect(error?.code).toBe('INFRA_FAILURE')
    expect(error?.message).toContain(`${fake.url}/api/public/scores: HTTP 400`)
    expect(error?.message).toMatch(/0 of 1 scores sent/)
  })
})
