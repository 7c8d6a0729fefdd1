import type { AggregatedScore } from '../../../src/core/index.ts'
import type { MonitorScore, MonitorScoreBatch, ScoreAggregator } from '../../../src/monitor/index.ts'

/** A batch as a test holds it: the scores in an array instead of a stream. */
export type HeldBatch = Omit<MonitorScoreBatch, 'scores' | 'count'> & { scores: MonitorScore[] }

/** The batch a publisher is handed, over scores a test holds. */
export function streamedBatch(held: HeldBatch): MonitorScoreBatch {
  const scores = held.scores
  return {
    ...held,
    count: scores.length,
    async *scores() {
      yield* scores
    },
  }
}

/** What a publisher was handed, read whole. */
export async function heldBatch(batch: MonitorScoreBatch): Promise<HeldBatch> {
  const scores: MonitorScore[] = []
  for await (const score of batch.scores()) scores.push(score)
  if (batch.count !== scores.length)
    throw new Error(`the batch says ${batch.count} scores and streams ${scores.length}`)
  const { monitorId, runId, monitorName, window, aggregated } = batch
  return structuredClone({ monitorId, runId, monitorName, window, aggregated, scores })
}

/** An aggregator over a test's whole-array aggregate function. */
export function heldAggregator(
  aggregate: (scores: MonitorScore[], skipped: ReadonlyMap<string, number>) => AggregatedScore[],
): ScoreAggregator {
  const scores: MonitorScore[] = []
  return { add: (score) => void scores.push(score), result: (skipped) => aggregate(scores, skipped) }
}

/** Everything an async iterable yields (Array.fromAsync is Node 22's). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = []
  for await (const item of items) all.push(item)
  return all
}
