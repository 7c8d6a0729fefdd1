import { createHash } from 'node:crypto'
import { mockRunner } from '../../../src/agents/index.ts'
import { checksumOf, type FullTrace, type TraceStore } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { contains } from '../../../src/evaluators/index.ts'
import type { MonitorScore, ScoredTrace, TraceScorer } from '../../../src/monitor/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'

export const IDENTIFIER = 'answer-ok'

/**
 * A scorer for the job's tests that goes through the real engine: each trace becomes a scripted trial whose final
 * answer is the trace's output, judged by the `contains` evaluator ("ok"). The score part's scorer maps traces in
 * full; this one needs only what the job does with a ScoredTrace. Ids as the split defines them: sha256 of the
 * trace's root span, the identifier and a version, joined by NUL.
 */
export function engineScorer(options: {
  runId: string
  traceStore?: TraceStore
  /** Latency of the scripted agent's step: scoring takes this long (cancellable). */
  delayMs?: number
  costUsd?: number
  calls?: string[]
  version?: string
}): TraceScorer {
  const store = options.traceStore ?? new MemoryTraceStore()
  const version = options.version ?? 'v1'
  const benchmark = { id: 'support-monitor', version: '1', datasetChecksum: 'c'.repeat(64) }
  return async (trace: FullTrace, signal: AbortSignal): Promise<ScoredTrace> => {
    options.calls?.push(trace.traceId)
    const prompt = String(trace.input)
    const task = {
      id: trace.traceId,
      benchmark: benchmark.id,
      prompt,
      metadata: {},
      checksum: checksumOf({ id: trace.traceId, prompt }),
    }
    const run = await runTrial({
      runId: options.runId,
      benchmark,
      task,
      trial: 0,
      runner: mockRunner({
        name: 'production',
        scripts: () => ({
          steps: [{ kind: 'final_answer', answer: String(trace.output), delayMs: options.delayMs ?? 0 }],
        }),
      }),
      evaluators: [contains({ id: IDENTIFIER, expected: 'ok' })],
      traceStore: store,
      signal,
    })
    const scores: MonitorScore[] = run.record.scores.map((s) => ({
      id: createHash('sha256').update([trace.rootSpanId, s.evaluatorId, version].join('\0')).digest('hex'),
      identifier: s.evaluatorId,
      spanId: trace.rootSpanId,
      costUsd: options.costUsd ?? 0,
      individual: {
        evaluatorName: 'Answer is ok',
        level: 'trace',
        traceId: trace.traceId,
        score: s.score,
        explanation: s.explanation,
        traceStartTime: trace.startTime,
      },
    }))
    return { traceId: trace.traceId, scores, record: run.record, events: run.events }
  }
}

/** Mean and pass rate per identifier, with the skipped traces counted: what the score part's aggregateScores gives. */
export function meanAggregate(scores: MonitorScore[], skipped: ReadonlyMap<string, number>) {
  const ids = new Set([...scores.map((s) => s.identifier), ...skipped.keys()])
  return [...ids].map((identifier) => {
    const values = scores
      .filter((s) => s.identifier === identifier && s.individual.score !== undefined)
      .map((s) => s.individual.score!)
    const mean = values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length
    return {
      identifier,
      evaluatorName: 'Answer is ok',
      level: 'trace' as const,
      aggregations: {
        mean,
        pass_rate: values.length === 0 ? null : values.filter((v) => v >= 0.5).length / values.length,
      },
      count: values.length,
      skippedCount: skipped.get(identifier) ?? 0,
    }
  })
}
