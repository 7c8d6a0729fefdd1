// The seed publisher's POST body streamed from a window's spill file: sent in chunks (no content-length) while the
// spill is still being read, byte for byte the JSON of the checked payload, and sent whole again on a retry.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ScoresPayload, type AggregatedScore } from '../../../src/core/index.ts'
import {
  createAmpPublisher,
  openScoreSpill,
  type MonitorScore,
  type MonitorScoreBatch,
  type ScoreSpill,
} from '../../../src/monitor/index.ts'
import { recordingSleep } from './fake-http.ts'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const NEVER = new AbortController().signal
const TRACES = 4000

function scoresOf(n: number): MonitorScore[] {
  const traceId = `trace-${String(n).padStart(5, '0')}`
  return [
    {
      id: `q-${n}`,
      identifier: 'trace-quality',
      spanId: `${traceId}-root`,
      individual: {
        evaluatorName: 'Quality',
        level: 'trace',
        traceId,
        score: (n % 7) / 7,
        explanation: `trace ${n} looked ${n % 3 === 0 ? 'fine' : 'slow'}`,
      },
      costUsd: 0,
    },
    {
      id: `l-${n}`,
      identifier: 'latency',
      spanId: `${traceId}-llm`,
      individual: {
        evaluatorName: 'Latency',
        level: 'llm',
        traceId,
        skipReason: 'no timing',
        spanContext: { spanId: `${traceId}-llm`, model: 'gpt-4o-mini' },
      },
      costUsd: 0,
    },
  ]
}

const AGGREGATED: AggregatedScore[] = [
  {
    identifier: 'trace-quality',
    evaluatorName: 'Quality',
    level: 'trace',
    aggregations: { mean: 0.4 },
    count: TRACES,
    skippedCount: 0,
  },
]

/** A spill of TRACES traces on disk, and a batch over it that counts what each pass over it has read. */
async function spilledBatch(): Promise<{ batch: MonitorScoreBatch; passes: number[]; all: MonitorScore[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'aeo-publisher-stream-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  const spill: ScoreSpill = await openScoreSpill(join(dir, 'scores.jsonl'))
  const all: MonitorScore[] = []
  for (let n = 1; n <= TRACES; n++) {
    const scores = scoresOf(n)
    all.push(...scores)
    await spill.append(`trace-${n}`, scores)
  }
  const passes: number[] = []
  const batch: MonitorScoreBatch = {
    monitorId: 'mon-1',
    runId: 'run-1',
    monitorName: 'nightly',
    window: { start: '2026-03-04T10:00:00.000Z', end: '2026-03-04T11:00:00.000Z' },
    count: spill.count,
    aggregated: AGGREGATED,
    async *scores() {
      const pass = passes.push(0) - 1
      for await (const score of spill.scores()) {
        passes[pass]!++
        yield score
      }
    },
  }
  return { batch, passes, all }
}

interface Received {
  headers: IncomingMessage['headers']
  chunks: number
  body: string
  /** What the batch's current pass had read when the first piece of this body arrived. */
  readAtFirstChunk: number
}

/** A publisher server reading each body as it comes, answering from `statuses` (200 once they run out). */
async function publisherServer(statuses: number[], passes: number[]) {
  const received: Received[] = []
  const server: Server = createServer((req, res) => {
    const got: Received = { headers: req.headers, chunks: 0, body: '', readAtFirstChunk: -1 }
    received.push(got)
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      if (got.chunks++ === 0) got.readAtFirstChunk = passes[passes.length - 1] ?? -1
      got.body += chunk
    })
    req.on('end', () => {
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
}

/** The body the publisher sent when it held the payload whole: JSON.stringify of the checked ScoresPayload. */
function wholeBody(all: MonitorScore[]): string {
  return JSON.stringify(
    ScoresPayload.parse({ individualScores: all.map((s) => s.individual), aggregatedScores: AGGREGATED }),
  )
}

describe('createAmpPublisher streams the body from the spill', () => {
  it('sends it chunked while the spill is still being read, byte for byte the whole payload', async () => {
    const { batch, passes, all } = await spilledBatch()
    const server = await publisherServer([], passes)
    const publisher = createAmpPublisher({ endpoint: server.url, monitorId: 'm', runId: 'r', tokens: null })
    await publisher.publish(batch, NEVER)

    expect(server.received).toHaveLength(1)
    const [got] = server.received
    expect(got!.headers['transfer-encoding']).toBe('chunked')
    expect(got!.headers['content-length']).toBeUndefined()
    expect(got!.chunks).toBeGreaterThan(1)
    // One pass checks every score before anything is sent; the pass that sends had read only part of the spill
    // when the server had the body's first piece.
    expect(passes).toEqual([all.length, all.length])
    expect(got!.readAtFirstChunk).toBeGreaterThanOrEqual(0)
    expect(got!.readAtFirstChunk).toBeLessThan(all.length)
    expect(got!.body).toBe(wholeBody(all))
  })

  it('a 503 once: the retry resends the whole body from the spill, the same bytes', async () => {
    const { batch, passes, all } = await spilledBatch()
    const server = await publisherServer([503], passes)
    const { waits, sleep } = recordingSleep()
    const publisher = createAmpPublisher({
      endpoint: server.url,
      monitorId: 'm',
      runId: 'r',
      tokens: null,
      retry: { sleep },
    })
    await publisher.publish(batch, NEVER)

    expect(waits).toEqual([2_000])
    expect(server.received).toHaveLength(2)
    for (const got of server.received) {
      expect(got.headers['transfer-encoding']).toBe('chunked')
      expect(got.body).toBe(wholeBody(all))
    }
    // The check, then one full read of the spill per attempt.
    expect(passes).toEqual([all.length, all.length, all.length])
  })

  it('a spill that cannot be read back fails the publish once, with the file named, not retried', async () => {
    const { batch } = await spilledBatch()
    const server = await publisherServer([], [])
    let calls = 0
    const broken: MonitorScoreBatch = {
      ...batch,
      async *scores() {
        // The check passes; the send's read fails halfway (the file was removed under it, say).
        if (calls++ === 0) {
          yield* batch.scores()
          return
        }
        let n = 0
        for await (const score of batch.scores()) {
          if (n++ === 500) throw new Error('ENOENT: scores.jsonl')
          yield score
        }
      },
    }
    const { waits, sleep } = recordingSleep()
    const publisher = createAmpPublisher({
      endpoint: server.url,
      monitorId: 'm',
      runId: 'r',
      tokens: null,
      retry: { sleep },
    })
    await expect(publisher.publish(broken, NEVER)).rejects.toThrow(/ENOENT: scores\.jsonl/)
    expect(waits).toEqual([])
    expect(calls).toBe(2)
  })
})
