import { AgentEvalOpsError, LangfuseCreateScore, LangfuseCreateScoreResponse } from '../../core/index.ts'
import type { MonitorScore, MonitorScoreBatch, ScorePublisher } from '../contract.ts'
import { createLangfuseClient, jsonBody, type LangfuseOptions } from '../sources/langfuse-client.ts'

/*
 * Scores to Langfuse: one `POST /api/public/scores` per score, its `id` our score id, so Langfuse keeps one score
 * per id however often a window is published (it upserts by id). Trace-level scores attach to the trace, agent- and
 * LLM-level ones also to the observation they judge (`observationId`, the span id). A score the evaluator skipped
 * has no value Langfuse could hold and is not sent; the skip still counts in the seed publisher's aggregates.
 */

/** Scores in flight at once: a few, to stay inside Langfuse's rate limits. */
export const LANGFUSE_PUBLISH_CONCURRENCY = 4

export function createLangfusePublisher(options: LangfuseOptions): ScorePublisher {
  const client = createLangfuseClient(options)
  return {
    description: `Langfuse scores ${client.endpoint}`,
    async publish(batch, signal) {
      const what = `Langfuse POST ${client.endpoint}/api/public/scores`
      const inFlight = new Set<Promise<void>>()
      let sent = 0
      let failure: { error: unknown } | null = null
      const send = async (body: LangfuseCreateScore) => {
        try {
          const response = await client.request('POST', '/scores', signal, body)
          const answer = LangfuseCreateScoreResponse.safeParse(jsonBody(response, what))
          if (!answer.success) {
            throw new AgentEvalOpsError('INFRA_FAILURE', `${what} did not answer with the score's id`, {
              hint: 'check the endpoint is a Langfuse server',
            })
          }
          sent++
        } catch (e) {
          failure ??= { error: e }
        }
      }
      // The batch's scores are streamed from its spill: a few requests in flight, no score held beyond its own.
      for await (const score of batch.scores()) {
        if (failure !== null) break
        if (signal.aborted) throw new AgentEvalOpsError('RUN_ABORTED', 'Langfuse publish aborted')
        const body = langfuseScoreOf(score, batch)
        if (body === null) continue
        while (inFlight.size >= LANGFUSE_PUBLISH_CONCURRENCY) await Promise.race(inFlight)
        if (failure !== null) break
        const request: Promise<void> = send(body).finally(() => inFlight.delete(request))
        inFlight.add(request)
      }
      await Promise.all(inFlight)
      if (failure === null) return
      const e = (failure as { error: unknown }).error
      throw e instanceof AgentEvalOpsError
        ? new AgentEvalOpsError(
            e.code,
            `${e.message} (${sent} of ${batch.count} scores sent, skipped ones never are; sending again is safe, each score keeps its id)`,
            { cause: e },
          )
        : e
    },
  }
}

/** The CreateScoreRequest of one score, checked before it is sent; null for a skipped score. */
export function langfuseScoreOf(score: MonitorScore, batch: MonitorScoreBatch): LangfuseCreateScore | null {
  const s = score.individual
  if (s.score === undefined) return null
  return LangfuseCreateScore.parse({
    id: score.id,
    traceId: s.traceId,
    ...(s.level === 'trace' ? {} : { observationId: score.spanId }),
    name: s.evaluatorName,
    value: s.score,
    dataType: 'NUMERIC',
    ...(s.explanation ? { comment: s.explanation } : {}),
    metadata: {
      identifier: score.identifier,
      level: s.level,
      monitorName: batch.monitorName,
      monitorId: batch.monitorId,
      runId: batch.runId,
      window: batch.window,
    },
  })
}
