import { afterEach, describe, expect, it } from 'vitest'
import type { IndividualScore } from '../../src/core/index.ts'
import {
  createOtlpLogsPublisher,
  otlpLogsUrl,
  type MonitorScore,
  type MonitorScoreBatch,
} from '../../src/monitor/index.ts'
import { streamedBatch } from './support/batch.ts'
import { startOtlpReceiver, type OtlpReceiver } from '../observability/otlp-receiver.ts'

let receiver: OtlpReceiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

const OTLP_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const TASK_SPAN = '00f067aa0ba902b7'
const CHAT_SPAN = '53995c3f42cd8ad8'

function score(id: string, spanId: string, individual: IndividualScore): MonitorScore {
  return {
    id,
    identifier: individual.evaluatorName.toLowerCase().replace(/ /g, '-'),
    spanId,
    individual,
    costUsd: 0,
  }
}

const SCORES: MonitorScore[] = [
  score('a'.repeat(64), TASK_SPAN, {
    evaluatorName: 'Tool use',
    level: 'trace',
    traceId: `${OTLP_TRACE}-${TASK_SPAN}`,
    score: 1,
    explanation: 'called calc with the right arguments',
  }),
  score('b'.repeat(64), CHAT_SPAN, {
    evaluatorName: 'Answer relevance',
    level: 'llm',
    traceId: `${OTLP_TRACE}-${TASK_SPAN}`,
    score: 0.75,
    spanContext: { spanId: CHAT_SPAN, model: 'claude-x', vendor: 'anthropic' },
  }),
  score('c'.repeat(64), 'trace-001', {
    evaluatorName: 'Trace quality',
    level: 'trace',
    traceId: 'trace-001',
    skipReason: 'the trace has no agent span',
  }),
]

const BATCH: MonitorScoreBatch = streamedBatch({
  monitorId: 'mon-7',
  runId: 'run-42',
  monitorName: 'nightly',
  window: { start: '2026-03-01T00:00:00Z', end: '2026-03-01T01:00:00Z' },
  scores: SCORES,
  aggregated: [],
})

interface JsonLogRecord {
  eventName?: string
  traceId?: string
  spanId?: string
  attributes: { key: string; value: Record<string, unknown> }[]
}

function recordsOf(body: string): JsonLogRecord[] {
  const request = JSON.parse(body) as {
    resourceLogs: { scopeLogs: { scope: { name: string }; logRecords: JsonLogRecord[] }[] }[]
  }
  return request.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords))
}

function attributes(record: JsonLogRecord): Record<string, unknown> {
  return Object.fromEntries(record.attributes.map((a) => [a.key, Object.values(a.value)[0]]))
}

describe('createOtlpLogsPublisher', () => {
  it('sends gen_ai.evaluation.result events through the OpenTelemetry logs SDK, each parented to its span', async () => {
    receiver = await startOtlpReceiver()
    const publisher = createOtlpLogsPublisher({ endpoint: receiver.url, headers: { 'x-tenant': 'shop' } })
    expect(publisher.description).toBe(`OTLP logs ${receiver.url}/v1/logs`)
    await publisher.publish(BATCH, new AbortController().signal)

    expect(receiver.requests).toHaveLength(1)
    const [request] = receiver.requests
    expect(request?.path).toBe('/v1/logs')
    expect(request?.headers['x-tenant']).toBe('shop')
    expect(request?.headers['content-type']).toMatch(/application\/json/)
    const records = recordsOf(request!.body)
    expect(records).toHaveLength(3)
    expect(records.every((r) => r.eventName === 'gen_ai.evaluation.result')).toBe(true)

    const [trace, llm, skipped] = records as [JsonLogRecord, JsonLogRecord, JsonLogRecord]
    expect(trace.traceId).toBe(OTLP_TRACE)
    expect(trace.spanId).toBe(TASK_SPAN)
    expect(attributes(trace)).toMatchObject({
      'gen_ai.evaluation.name': 'Tool use',
      'gen_ai.evaluation.score.value': 1,
      'gen_ai.evaluation.score.label': 'pass',
      'gen_ai.evaluation.explanation': 'called calc with the right arguments',
      'agentevalops.score.id': 'a'.repeat(64),
      'agentevalops.monitor.level': 'trace',
      'agentevalops.monitor.run_id': 'run-42',
    })
    expect(llm.spanId).toBe(CHAT_SPAN)
    expect(attributes(llm)).toMatchObject({
      'gen_ai.evaluation.score.value': 0.75,
      'gen_ai.request.model': 'claude-x',
      'gen_ai.provider.name': 'anthropic',
    })
    expect(attributes(llm)['gen_ai.evaluation.score.label']).toBeUndefined()
    // A trace id that is not OTLP's (another source's) gives an event without a parent span.
    expect(skipped.traceId ?? '').toBe('')
    expect(attributes(skipped)).toMatchObject({
      'gen_ai.evaluation.score.label': 'skipped',
      'gen_ai.evaluation.explanation': 'the trace has no agent span',
      'agentevalops.monitor.trace_id': 'trace-001',
    })
    expect(attributes(skipped)['gen_ai.evaluation.score.value']).toBeUndefined()
  })

  it('lets the exporter retry a 503, as OTLP says to', async () => {
    receiver = await startOtlpReceiver([{ status: 503 }])
    await createOtlpLogsPublisher({ endpoint: receiver.url }).publish(BATCH, new AbortController().signal)
    expect(receiver.requests).toHaveLength(2)
    expect(recordsOf(receiver.requests[1]!.body)).toHaveLength(3)
  })

  it('throws INFRA_FAILURE naming the collector when it refuses the export', async () => {
    receiver = await startOtlpReceiver([{ status: 400, body: '{"message":"bad"}' }])
    const publisher = createOtlpLogsPublisher({ endpoint: `${receiver.url}/v1/logs` })
    const error = await publisher.publish(BATCH, new AbortController().signal).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    )
    expect(error?.code).toBe('INFRA_FAILURE')
    expect(error?.message).toContain(`${receiver.url}/v1/logs`)
    expect(receiver.requests).toHaveLength(1)
  })

  it('takes a base URL or the full logs URL', () => {
    expect(otlpLogsUrl('http://collector:4318/')).toBe('http://collector:4318/v1/logs')
    expect(otlpLogsUrl('http://collector:4318/v1/logs')).toBe('http://collector:4318/v1/logs')
    expect(() => otlpLogsUrl('collector:4318')).toThrow(/http\(s\) URL/)
  })
})
