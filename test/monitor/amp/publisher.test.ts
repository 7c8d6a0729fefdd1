import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../../src/core/index.ts'
import type { MonitorScore } from '../../../src/monitor/contract.ts'
import { createAmpPublisher, scoresPayloadText, type TokenProvider } from '../../../src/monitor/index.ts'
import { collect, streamedBatch, type HeldBatch } from '../support/batch.ts'
import { traceId } from './full-traces.ts'
import { recordingSleep, startFakeHttp, type FakeHttp, type Reply } from './fake-http.ts'

const servers: FakeHttp[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    expect(server.problems).toEqual([])
    await server.close()
  }
})

const NEVER = new AbortController().signal
const tokens: TokenProvider = { token: () => Promise.resolve('publisher-token-42') }

function score(over: Partial<MonitorScore['individual']>, identifier = 'tool-use'): MonitorScore {
  return {
    id: `${identifier}-${over.traceId ?? traceId(1)}-${over.spanContext?.spanId ?? 'root'}`,
    identifier,
    spanId: over.spanContext?.spanId ?? 'root-span',
    individual: { evaluatorName: 'Tool use', level: 'trace', traceId: traceId(1), ...over },
    costUsd: 0,
  }
}

/** A window's scores at the three levels, judged and skipped. */
function batch(): HeldBatch {
  return {
    monitorId: 'mon 7/a',
    runId: 'run-2026-03-04T10',
    monitorName: 'booker-nightly',
    window: { start: '2026-03-04T10:00:00.000Z', end: '2026-03-04T11:00:00.000Z' },
    scores: [
      score({
        score: 1,
        explanation: 'every tool call was valid',
        traceStartTime: '2026-03-04T10:00:00.000Z',
      }),
      score({ traceId: traceId(2), skipReason: 'trace has no tool calls' }),
      score(
        {
          evaluatorName: 'Answer relevance',
          level: 'agent',
          score: 0.75,
          spanContext: { spanId: '000000000001' + '0001', agentName: 'booker' },
        },
        'llm_judge.relevance',
      ),
      score(
        {
          evaluatorName: 'Latency',
          level: 'llm',
          score: 0,
          explanation: 'over budget',
          spanContext: { spanId: '0000000000010002', model: 'claude-sonnet-4-5', vendor: 'anthropic' },
        },
        'latency',
      ),
    ],
    aggregated: [
      {
        identifier: 'tool-use',
        evaluatorName: 'Tool use',
        level: 'trace',
        aggregations: { mean: 1, median: 1, pass_rate: 1 },
        count: 1,
        skippedCount: 1,
      },
      {
        identifier: 'llm_judge.relevance',
        evaluatorName: 'Answer relevance',
        level: 'agent',
        aggregations: { mean: 0.75, median: 0.75, pass_rate: null },
        count: 1,
        skippedCount: 0,
      },
      {
        identifier: 'latency',
        evaluatorName: 'Latency',
        level: 'llm',
        aggregations: { mean: 0 },
        count: 1,
        skippedCount: 0,
      },
    ],
  }
}

async function publisherAt(answer: (index: number) => Reply) {
  const server = await startFakeHttp((request) => answer(request.index))
  servers.push(server)
  const { waits, sleep } = recordingSleep()
  const publisher = createAmpPublisher({
    endpoint: `${server.url}/internal`,
    monitorId: 'mon 7/a',
    runId: 'run-2026-03-04T10',
    tokens,
    retry: { sleep },
  })
  return { server, waits, publisher }
}

/*
 * The seed's payload, field by field as the issue states it, written out here independently of the zod schema the
 * publisher checks with: each object's keys must be among the allowed ones, each value of the stated type.
 */
const LEVELS = ['trace', 'agent', 'llm']
const isString = (v: unknown): boolean => typeof v === 'string' && v.length > 0
const isIso = (v: unknown): boolean =>
  typeof v === 'string' && !Number.isNaN(Date.parse(v)) && /T.*(Z|[+-]\d\d:\d\d)$/.test(v)
const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0

function seedShapeProblems(payload: unknown): string[] {
  const problems: string[] = []
  const check = (ok: boolean, where: string): void => {
    if (!ok) problems.push(where)
  }
  const keysWithin = (value: Record<string, unknown>, allowed: string[], where: string): void => {
    for (const key of Object.keys(value))
      check(allowed.includes(key), `${where}.${key} is not a field of the seed`)
  }
  const body = payload as Record<string, unknown>
  keysWithin(body, ['individualScores', 'aggregatedScores'], 'payload')
  check(Array.isArray(body.individualScores), 'individualScores is an array')
  check(Array.isArray(body.aggregatedScores), 'aggregatedScores is an array')
  for (const [i, raw] of (body.individualScores as unknown[]).entries()) {
    const s = raw as Record<string, unknown>
    const at = `individualScores[${i}]`
    keysWithin(
      s,
      [
        'evaluatorName',
        'level',
        'traceId',
        'score',
        'skipReason',
        'explanation',
        'traceStartTime',
        'spanContext',
      ],
      at,
    )
    check(isString(s.evaluatorName), `${at}.evaluatorName`)
    check(LEVELS.includes(s.level as string), `${at}.level`)
    check(isString(s.traceId), `${at}.traceId`)
    check('score' in s !== 'skipReason' in s, `${at}: score xor skipReason`)
    if ('score' in s) check(typeof s.score === 'number' && s.score >= 0 && s.score <= 1, `${at}.score`)
    if ('skipReason' in s) check(isString(s.skipReason), `${at}.skipReason`)
    if ('explanation' in s) check(typeof s.explanation === 'string', `${at}.explanation`)
    if ('traceStartTime' in s) check(isIso(s.traceStartTime), `${at}.traceStartTime`)
    if ('spanContext' in s) {
      const c = s.spanContext as Record<string, unknown>
      keysWithin(c, ['spanId', 'agentName', 'model', 'vendor'], `${at}.spanContext`)
      check(isString(c.spanId), `${at}.spanContext.spanId`)
      for (const key of ['agentName', 'model', 'vendor'])
        if (key in c) check(typeof c[key] === 'string', `${at}.spanContext.${key}`)
    }
    check(s.level === 'trace' || 'spanContext' in s, `${at}: a span-level score names its span`)
  }
  for (const [i, raw] of (body.aggregatedScores as unknown[]).entries()) {
    const a = raw as Record<string, unknown>
    const at = `aggregatedScores[${i}]`
    keysWithin(a, ['identifier', 'evaluatorName', 'level', 'aggregations', 'count', 'skippedCount'], at)
    check(isString(a.identifier), `${at}.identifier`)
    check(isString(a.evaluatorName), `${at}.evaluatorName`)
    check(LEVELS.includes(a.level as string), `${at}.level`)
    check(a.aggregations !== null && typeof a.aggregations === 'object', `${at}.aggregations`)
    for (const [name, value] of Object.entries(a.aggregations as Record<string, unknown>))
      check(value === null || typeof value === 'number', `${at}.aggregations.${name}`)
    check(isCount(a.count), `${at}.count`)
    check(isCount(a.skippedCount), `${at}.skippedCount`)
  }
  return problems
}

describe('createAmpPublisher (the seed publisher API)', () => {
  it('POSTs the payload in the seed shape, field by field, to the monitor run with the bearer token', async () => {
    const { server, publisher } = await publisherAt(() => ({ status: 200, body: { message: 'ok' } }))
    await publisher.publish(streamedBatch(batch()), NEVER)

    expect(server.requests).toHaveLength(1)
    const request = server.requests[0]
    expect(request?.method).toBe('POST')
    expect(request?.path).toBe(
      '/internal/api/v1/publisher/monitors/mon%207%2Fa/runs/run-2026-03-04T10/scores',
    )
    expect(request?.headers.authorization).toBe('Bearer publisher-token-42')
    expect(request?.headers['content-type']).toBe('application/json')
    const body = JSON.parse(request?.body ?? 'null') as Record<string, unknown>
    expect(seedShapeProblems(body)).toEqual([])
    // Every score and aggregate of the batch is sent, unchanged.
    expect(body.individualScores).toEqual(batch().scores.map((s) => s.individual))
    expect(body.aggregatedScores).toEqual(batch().aggregated)
    expect(body.individualScores).toHaveLength(4)
    expect(publisher.description).toBe(
      `publisher ${server.url}/internal/api/v1/publisher/monitors/mon%207%2Fa/runs/run-2026-03-04T10/scores`,
    )
  })

  it('the field-by-field check catches a payload that strays from the seed shape', async () => {
    const good: unknown = JSON.parse((await collect(scoresPayloadText(streamedBatch(batch())))).join(''))
    expect(seedShapeProblems(good)).toEqual([])
    const strays = structuredClone(good) as { individualScores: Record<string, unknown>[] }
    strays.individualScores[0] = { ...strays.individualScores[0], displayName: 'Tool use', skipReason: 'x' }
    expect(seedShapeProblems(strays)).toEqual([
      'individualScores[0].displayName is not a field of the seed',
      'individualScores[0]: score xor skipReason',
    ])
  })

  it('retries a 429, waiting what its retry-after asks, then succeeds', async () => {
    const { server, waits, publisher } = await publisherAt((i) =>
      i === 0
        ? { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '7' } }
        : { status: 200 },
    )
    await publisher.publish(streamedBatch(batch()), NEVER)
    expect(server.requests).toHaveLength(2)
    expect(waits).toEqual([7_000])
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body)
  })

  it('gives up after 3 × 500 with INFRA_FAILURE naming the endpoint, backing off 2 s then 4 s', async () => {
    const { server, waits, publisher } = await publisherAt(() => ({
      status: 500,
      body: 'db down; token publisher-token-42',
    }))
    const error = await publisher.publish(streamedBatch(batch()), NEVER).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain(`${server.url}/internal/api/v1/publisher/monitors/`)
    expect((error as Error).message).toContain('3 attempt(s): HTTP 500')
    expect((error as Error).message).not.toContain('publisher-token-42')
    expect(server.requests).toHaveLength(3)
    expect(waits).toEqual([2_000, 4_000])
  })

  it('does not retry a 400', async () => {
    const { server, waits, publisher } = await publisherAt(() => ({
      status: 400,
      body: { error: 'aggregatedScores[0].level: unknown level', request: 'Bearer publisher-token-42' },
    }))
    const error = await publisher.publish(streamedBatch(batch()), NEVER).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain('refused the scores (HTTP 400')
    expect((error as Error).message).toContain('unknown level')
    expect((error as Error).message).not.toContain('publisher-token-42')
    expect(server.requests).toHaveLength(1)
    expect(waits).toEqual([])
  })

  it('retries a connection that is refused, then throws naming the endpoint', async () => {
    const port = await closedPort()
    const { waits, sleep } = recordingSleep()
    const publisher = createAmpPublisher({
      endpoint: `http://127.0.0.1:${port}`,
      monitorId: 'm',
      runId: 'r',
      tokens: null,
      retry: { sleep },
    })
    const error = await publisher.publish(streamedBatch(batch()), NEVER).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain(
      `http://127.0.0.1:${port}/api/v1/publisher/monitors/m/runs/r/scores`,
    )
    expect((error as Error).message).toContain('ECONNREFUSED')
    expect(waits).toEqual([2_000, 4_000])
  })

  it('checks the payload before sending: a score outside [0, 1] or with both score and skipReason is never sent', async () => {
    const { server, publisher } = await publisherAt(() => ({ status: 200 }))
    const outOfRange = batch()
    outOfRange.scores[2] = score({ level: 'agent', score: 1.5, spanContext: { spanId: 's' } })
    const error = await publisher.publish(streamedBatch(outOfRange), NEVER).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain('individualScores[2].score')

    const both = batch()
    both.scores[0] = score({ score: 1, skipReason: 'no tools' })
    await expect(publisher.publish(streamedBatch(both), NEVER)).rejects.toThrow(/individualScores\[0\]/)
    expect(server.requests).toHaveLength(0)
  })

  it('stops waiting between retries when the signal aborts', async () => {
    const { server } = await publisherAt(() => ({ status: 503 }))
    const stop = new AbortController()
    const publisher = createAmpPublisher({
      endpoint: server.url,
      monitorId: 'm',
      runId: 'r',
      tokens,
      retry: {
        sleep: (_ms, signal) => {
          stop.abort(new Error('SIGTERM'))
          return Promise.reject(signal.reason as Error)
        },
      },
    })
    const error = await publisher.publish(streamedBatch(batch()), stop.signal).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'RUN_ABORTED')).toBe(true)
    expect(server.requests).toHaveLength(1)
  })
})

/** A port on 127.0.0.1 nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
