import * as z from 'zod'
import { AgentEvalOpsError, IndividualScore, ScoresPayload, type AggregatedScore } from '../../core/index.ts'
import type { MonitorScoreBatch, ScorePublisher } from '../contract.ts'
import { bearerAuth } from './bearer.ts'
import { describeUrl, fetchWithRetry, snippet, type RetryOptions } from './http-retry.ts'
import type { TokenProvider } from './idp-token.ts'

export interface AmpPublisherOptions {
  /** The publisher's base URL (`--publisher-endpoint`). */
  endpoint: string
  monitorId: string
  runId: string
  tokens: TokenProvider | null
  retry?: RetryOptions
}

/** Bytes of the body gathered before they go to the socket: a window of 20,000 scores is some 60 writes. */
export const PUBLISH_BODY_CHUNK_BYTES = 64 * 1024

/** A payload the publisher would reject: it fails here, with the field named, not as an opaque 400. */
function unfit(
  batch: MonitorScoreBatch,
  issues: readonly z.core.$ZodIssue[],
  prefix: string,
): AgentEvalOpsError {
  const issue = issues[0]
  const path = `${prefix}${issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? ''}`
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `the scores of monitor ${batch.monitorId} run ${batch.runId} do not fit the publisher's payload at ${path.replace(/^\./, '') || '(root)'}: ${issue?.message ?? 'invalid'}.`,
    { hint: 'This is a bug in the evaluator that produced the score: report it with the unpublished file.' },
  )
}

/**
 * The batch's scores in the seed's wire shape, each checked (the strict IndividualScore) as it is read from the
 * batch's stream; throws naming the first field that does not fit.
 */
export async function* checkedIndividualScores(batch: MonitorScoreBatch): AsyncGenerator<IndividualScore> {
  let i = 0
  for await (const score of batch.scores()) {
    const checked = IndividualScore.safeParse(score.individual)
    if (!checked.success) throw unfit(batch, checked.error.issues, `individualScores[${i}]`)
    i++
    yield checked.data
  }
}

export function checkedAggregatedScores(batch: MonitorScoreBatch): AggregatedScore[] {
  const checked = ScoresPayload.shape.aggregatedScores.safeParse(batch.aggregated)
  if (!checked.success) throw unfit(batch, checked.error.issues, 'aggregatedScores')
  return checked.data
}

/**
 * The POST body as it is sent, in pieces of about PUBLISH_BODY_CHUNK_BYTES: the header field, each checked score
 * read from the batch's stream, the aggregates. Joined, it is JSON.stringify of the checked ScoresPayload, byte for
 * byte, but a window's scores are never all in memory at once.
 */
export async function* scoresPayloadText(batch: MonitorScoreBatch): AsyncGenerator<string> {
  const aggregated = checkedAggregatedScores(batch)
  let pending = '{"individualScores":['
  let first = true
  for await (const score of checkedIndividualScores(batch)) {
    pending += `${first ? '' : ','}${JSON.stringify(score)}`
    first = false
    if (pending.length >= PUBLISH_BODY_CHUNK_BYTES) {
      yield pending
      pending = ''
    }
  }
  yield `${pending}],"aggregatedScores":${JSON.stringify(aggregated)}}`
}

/** A web stream of the body, for fetch: pulled a piece at a time, so the socket sets the pace. */
function bodyStream(pieces: AsyncGenerator<string>, failed: (e: Error) => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await pieces.next()
        if (next.done) controller.close()
        else controller.enqueue(encoder.encode(next.value))
      } catch (e) {
        failed(e instanceof Error ? e : new Error(String(e)))
        controller.error(e)
      }
    },
    async cancel() {
      await pieces.return(undefined)
    },
  })
}

/**
 * The seed's publisher API: one `POST {endpoint}/api/v1/publisher/monitors/{monitorId}/runs/{runId}/scores` per
 * batch, its body streamed from the batch's spill (chunked; the seed's server sets no body size limit, only its
 * read timeout, INTERNAL_SERVER_READ_TIMEOUT_SECONDS, default 10 s), bearer token attached; 5xx, 429 (its retry-after honoured) and network errors retried with exponential
 * backoff, any other 4xx thrown at once (resending what was refused would be refused again).
 */
export function createAmpPublisher(options: AmpPublisherOptions): ScorePublisher {
  const url =
    `${options.endpoint.replace(/\/+$/, '')}/api/v1/publisher/monitors/` +
    `${encodeURIComponent(options.monitorId)}/runs/${encodeURIComponent(options.runId)}/scores`
  const where = describeUrl(url)
  const description = `publisher ${where}`
  return {
    description,
    async publish(batch, signal) {
      // Every score is checked before the first byte is sent: a batch the publisher would refuse is never half sent.
      checkedAggregatedScores(batch)
      for await (const _ of checkedIndividualScores(batch));
      const auth = bearerAuth(options.tokens, signal)
      let bodyFailure: Error | null = null
      const answer = await fetchWithRetry(
        {
          what: description,
          url,
          // A new stream per attempt: a retry sends the whole body again, from the spill's first score.
          init: async () => ({
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              ...(await auth.headers()),
            },
            body: bodyStream(scoresPayloadText(batch), (e) => (bodyFailure ??= e)),
            duplex: 'half',
          }),
          reauthorize: () => auth.reauthorize(),
          bodyFailure: () => bodyFailure,
        },
        signal,
        options.retry,
      )
      if (answer.status >= 200 && answer.status <= 299) return
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `${description} refused the scores (HTTP ${answer.status}${snippet(answer.body)}); not retried.`,
        { hint: hintFor(answer.status) },
      )
    },
  }
}

function hintFor(status: number): string {
  if (status === 401 || status === 403) return 'Check the IDP_* credentials: the publisher refused the token.'
  if (status === 404) return 'Check --publisher-endpoint, --monitor-id and --run-id.'
  return 'Send the unpublished file again with `agentevalops monitor publish --from-file` once the cause is fixed.'
}
