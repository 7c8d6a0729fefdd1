// The monitor job's orchestration (runMonitorWindow) over a real engine scorer and in-test sources and sinks:
// sampling, ledger, settle lag, caps, the stop signal, publish failure kept on disk.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  openLedger,
  readUnpublished,
  runMonitorWindow,
  sampledIn,
  type MonitorTraceSource,
  type MonitorWindowOptions,
  type ScorePublisher,
  type TraceScorer,
} from '../../../src/monitor/index.ts'
import { collect, heldAggregator, heldBatch } from '../support/batch.ts'
import { engineScorer, IDENTIFIER, meanAggregate } from '../support/engine-scorer.ts'
import { arraySource, recordingPublisher } from '../support/sources.ts'
import { productionTrace, WINDOW } from '../support/traces.ts'

const temps: string[] = []
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true })
})
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'aeo-monitor-job-'))
  temps.push(dir)
  return dir
}

function options(
  source: MonitorTraceSource,
  scorer: TraceScorer,
  publishers: ScorePublisher[],
  dir: string,
  extra: Partial<MonitorWindowOptions> = {},
): MonitorWindowOptions {
  return {
    monitorName: 'support',
    monitorId: 'mon-1',
    runId: 'run-1',
    window: WINDOW,
    levels: ['trace'],
    source,
    scorer,
    aggregator: heldAggregator(meanAggregate),
    spillDir: join(dir, '.spill'),
    identifiers: [IDENTIFIER],
    samplingRate: 1,
    settleMs: 120_000,
    evaluatorsKey: 'k1',
    publishers,
    unpublishedDir: dir,
    stop: new AbortController().signal,
    cancel: new AbortController().signal,
    log: () => undefined,
    ...extra,
  }
}

const traces = (n: number) => Array.from({ length: n }, (_, i) => productionTrace(i + 1))

describe('runMonitorWindow', () => {
  it('an empty window: status no-traces, nothing scored, nothing published', async () => {
    const publisher = recordingPublisher()
    const calls: string[] = []
    const result = await runMonitorWindow(
      options(arraySource([]), engineScorer({ runId: 'r', calls }), [publisher], await tempDir()),
    )
    expect(result.status).toBe('no-traces')
    expect(calls).toEqual([])
    expect(publisher.batches).toEqual([])
  })

  it('scores every trace through the engine, skips a malformed one into skippedCount, publishes once', async () => {
    const items = [
      ...traces(12),
      { ok: false as const, traceId: 'trace-broken', reason: 'spans[0].startTime: invalid ISO time' },
      ...traces(20).slice(12),
    ]
    const publisher = recordingPublisher()
    const logs: string[] = []
    const result = await runMonitorWindow(
      options(arraySource(items), engineScorer({ runId: 'r' }), [publisher], await tempDir(), {
        log: (l) => void logs.push(l),
      }),
    )
    expect(result.status).toBe('published')
    expect(result.counts).toMatchObject({ fetched: 21, malformed: 1, scored: 20, failed: 0 })
    expect(publisher.batches).toHaveLength(1)
    const [batch] = publisher.batches
    expect(batch!.scores.map((s) => s.individual.traceId).sort()).toEqual(traces(20).map((t) => t.traceId))
    // Every fourth trace answers "sorry": scored 0 by the engine's contains evaluator.
    expect(batch!.scores.filter((s) => s.individual.score === 0)).toHaveLength(5)
    expect(batch!.aggregated).toEqual([
      expect.objectContaining({ identifier: IDENTIFIER, count: 20, skippedCount: 1 }),
    ])
    expect(batch!.aggregated[0]!.aggregations.mean).toBeCloseTo(15 / 20)
    expect(logs).toContain('skipped trace trace-broken: spans[0].startTime: invalid ISO time')
  })

  it('samples by trace id: a higher rate keeps every trace a lower rate kept', async () => {
    const all = traces(200)
    const scoredAt = async (rate: number) => {
      const publisher = recordingPublisher()
      await runMonitorWindow(
        options(arraySource(all), engineScorer({ runId: 'r' }), [publisher], await tempDir(), {
          samplingRate: rate,
        }),
      )
      return new Set(publisher.batches[0]!.scores.map((s) => s.individual.traceId))
    }
    const low = await scoredAt(0.25)
    const high = await scoredAt(0.6)
    expect(low.size).toBeGreaterThan(20)
    expect(low.size).toBeLessThan(high.size)
    for (const id of low) expect(high.has(id)).toBe(true)
    expect([...high].every((id) => sampledIn(id, 0.6))).toBe(true)
    expect(await scoredAt(0.25)).toEqual(low)
  })

  it('leaves traces that ended within the settle lag of now for a later run', async () => {
    const now = new Date('2026-01-31T01:00:30Z')
    const recent = productionTrace(900, { start: new Date('2026-01-31T00:59:50Z') })
    const publisher = recordingPublisher()
    const result = await runMonitorWindow(
      options(
        arraySource([...traces(5), recent]),
        engineScorer({ runId: 'r' }),
        [publisher],
        await tempDir(),
        {
          now: () => now,
          settleMs: 60_000,
        },
      ),
    )
    expect(result.counts).toMatchObject({ fetched: 6, scored: 5, unsettled: 1 })
    expect(publisher.batches[0]!.scores.map((s) => s.individual.traceId)).not.toContain(recent.traceId)
  })

  it('a rerun of the window gives the same score ids; with the ledger it scores no trace twice', async () => {
    const dir = await tempDir()
    const ledgerPath = join(dir, 'ledger.jsonl')
    const all = traces(30)
    const run = async (useLedger: boolean, rate = 0.5) => {
      const publisher = recordingPublisher()
      const calls: string[] = []
      const ledger = useLedger
        ? await openLedger(ledgerPath, { monitorId: 'mon-1', evaluatorsKey: 'k1' }, () => {})
        : null
      const result = await runMonitorWindow(
        options(arraySource(all), engineScorer({ runId: 'r', calls }), [publisher], dir, {
          ledger,
          samplingRate: rate,
        }),
      )
      return { result, calls, ids: publisher.batches.flatMap((b) => b.scores.map((s) => s.id)) }
    }
    const first = await run(true)
    expect(first.result.status).toBe('published')
    const again = await run(false)
    expect(again.ids.sort()).toEqual([...first.ids].sort())

    const rerun = await run(true)
    expect(rerun.calls, 'the ledger skips every trace scored before').toEqual([])
    expect(rerun.result).toMatchObject({
      status: 'nothing-new',
      counts: { alreadyScored: first.calls.length },
    })
    expect(rerun.ids).toEqual([])

    // A higher rate over the same window scores only the traces it adds.
    const wider = await run(true, 1)
    expect(wider.calls.filter((id) => first.calls.includes(id))).toEqual([])
    expect(wider.calls.length + first.calls.length).toBe(30)
    const lines = (await readFile(ledgerPath, 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(30)
  })

  it('a sink that fails keeps the whole batch on disk, leaves the ledger alone, and says where', async () => {
    const dir = await tempDir()
    const ledgerPath = join(dir, 'ledger.jsonl')
    const ledger = await openLedger(ledgerPath, { monitorId: 'mon-1', evaluatorsKey: 'k1' }, () => {})
    const good = recordingPublisher()
    const bad = recordingPublisher(1)
    const result = await runMonitorWindow(
      options(arraySource(traces(8)), engineScorer({ runId: 'r' }), [good, bad], dir, { ledger }),
    )
    expect(result.status).toBe('publish-failed')
    expect(result.unpublishedFile).toBe(join(dir, 'run-1.unpublished.jsonl'))
    expect(result.problems).toEqual([
      'in-test publisher: publisher http://127.0.0.1:1/x answered 500 three times',
    ])
    const file = await readUnpublished(result.unpublishedFile!)
    const kept = await heldBatch(file.batch)
    expect(kept.scores).toHaveLength(8)
    expect(kept.scores).toEqual(good.batches[0]!.scores)
    expect(kept.aggregated).toEqual(good.batches[0]!.aggregated)
    expect((await collect(file.traceIds())).sort()).toEqual(traces(8).map((t) => t.traceId))
    expect(ledger.size).toBe(0)
    await expect(readFile(ledgerPath, 'utf8')).rejects.toThrow(/ENOENT/)
  })

  it('--max-traces: scores that many, counts the rest as capped, stops fetching, publishes', async () => {
    const source = arraySource(traces(100))
    const publisher = recordingPublisher()
    const result = await runMonitorWindow(
      options(source, engineScorer({ runId: 'r' }), [publisher], await tempDir(), {
        maxTraces: 15,
        concurrency: 2,
      }),
    )
    expect(result).toMatchObject({ status: 'published', stoppedBy: 'max-traces' })
    expect(result.counts.scored).toBe(15)
    expect(source.state.served).toBeLessThan(10)
    expect(result.counts.capped).toBe(result.counts.fetched - 15)
    expect(publisher.batches[0]!.scores).toHaveLength(15)
  })

  it('--max-cost-usd: no trace starts once the judges spent the cap', async () => {
    const publisher = recordingPublisher()
    const result = await runMonitorWindow(
      options(
        arraySource(traces(40)),
        engineScorer({ runId: 'r', costUsd: 0.1 }),
        [publisher],
        await tempDir(),
        {
          maxCostUsd: 0.5,
          concurrency: 1,
        },
      ),
    )
    expect(result.stoppedBy).toBe('max-cost')
    expect(result.counts.scored).toBe(5)
    expect(publisher.batches[0]!.scores).toHaveLength(5)
  })

  it('a stop mid-window: no further page, in-flight traces finish, the scored part is published', async () => {
    const stop = new AbortController()
    const source = arraySource(traces(200))
    const publisher = recordingPublisher()
    const calls: string[] = []
    const scorer = engineScorer({ runId: 'r', delayMs: 5, calls })
    const stopping: TraceScorer = async (trace, signal) => {
      if (calls.length === 35) stop.abort()
      return scorer(trace, signal)
    }
    const result = await runMonitorWindow(
      options(source, stopping, [publisher], await tempDir(), { stop: stop.signal }),
    )
    expect(result).toMatchObject({ status: 'published', stoppedBy: 'signal' })
    expect(result.counts.scored).toBe(36)
    expect(result.counts.fetched).toBe(source.state.served * 10)
    expect(result.counts.fetched).toBeLessThan(200)
    expect(result.counts.leftOut).toBe(result.counts.fetched - 36)
    expect(publisher.batches[0]!.scores).toHaveLength(36)
  })

  it('a cancel after the grace abandons what is in flight: counted as left out, not published', async () => {
    const stop = new AbortController()
    const cancel = new AbortController()
    const publisher = recordingPublisher()
    const slow = engineScorer({ runId: 'r', delayMs: 60_000 })
    const fast = engineScorer({ runId: 'r' })
    let started = 0
    const scorer: TraceScorer = async (trace, signal) => {
      if (++started <= 3) return fast(trace, signal)
      // The fourth trace's agent step would take a minute: the stop comes, then the grace runs out.
      const pending = slow(trace, signal)
      stop.abort()
      cancel.abort()
      return pending
    }
    const result = await runMonitorWindow(
      options(arraySource(traces(30)), scorer, [publisher], await tempDir(), {
        stop: stop.signal,
        cancel: cancel.signal,
        concurrency: 1,
      }),
    )
    expect(result.stoppedBy).toBe('signal')
    expect(result.counts.scored).toBe(3)
    expect(result.counts.leftOut).toBe(result.counts.fetched - 3)
    expect(result.counts.leftOut).toBeGreaterThan(0)
    expect(publisher.batches[0]!.scores.map((s) => s.individual.traceId)).toEqual(
      traces(3).map((t) => t.traceId),
    )
  })

  it('a source failing mid-window: what was scored is kept on disk, nothing is published', async () => {
    const failing: MonitorTraceSource = {
      description: 'traces API http://127.0.0.1:9',
      async *pages() {
        yield traces(10).map((trace) => ({ ok: true as const, trace }))
        throw new Error('answered 503 after 3 tries')
      },
    }
    const publisher = recordingPublisher()
    const result = await runMonitorWindow(
      options(failing, engineScorer({ runId: 'r' }), [publisher], await tempDir()),
    )
    expect(result.status).toBe('source-failed')
    expect(result.problems).toEqual(['traces API http://127.0.0.1:9: answered 503 after 3 tries'])
    expect(publisher.batches).toEqual([])
    const file = await readUnpublished(result.unpublishedFile!)
    expect((await heldBatch(file.batch)).scores).toHaveLength(10)
  })
})
