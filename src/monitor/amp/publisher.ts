import { AgentEvalOpsError, ScoresPayload } from '../../core/index.ts'
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

/**
 * The batch in the seed's wire shape, checked field by field before anything is sent: a payload the publisher
 * would reject fails here, with the field named, instead of as an opaque 400 after the window's work.
 */
export function toScoresPayload(batch: MonitorScoreBatch): ScoresPayload {
  const payload = ScoresPayload.safeParse({
    individualScores: batch.scores.map((s) => s.individual),
    aggregatedScores: batch.aggregated,
  })
  if (payload.success) return payload.data
  const issue = payload.error.issues[0]
  const path = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? ''
  throw new AgentEvalOpsError(
    'INFRA_FAILURE',
    `the scores of monitor ${batch.monitorId} run ${batch.runId} do not fit the publisher's payload at ${path.replace(/^\./, '') || '(root)'}: ${issue?.message ?? 'invalid'}.`,
    { hint: 'This is a bug in the evaluator that produced the score: report it with the unpublished file.' },
  )
}

/**
 * The seed's publisher API: one `POST {endpoint}/api/v1/publisher/monitors/{monitorId}/runs/{runId}/scores` per
 * batch, bearer token attached; 5xx, 429 (its retry-after honoured) and network errors retried with exponential
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
      const body = JSON.stringify(toScoresPayload(batch))
      const auth = bearerAuth(options.tokens, signal)
      const answer = await fetchWithRetry(
        {
          what: description,
          url,
          init: async () => ({
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              ...(await auth.headers()),
            },
            body,
          }),
          reauthorize: () => auth.reauthorize(),
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
