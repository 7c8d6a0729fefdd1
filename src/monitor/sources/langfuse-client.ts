import { AgentEvalOpsError } from '../../core/index.ts'
import { fetchWithRetry, snippet, type HttpAnswer, type RetryOptions } from '../amp/http-retry.ts'

/*
 * Langfuse's public API (`/api/public/…`) with its basic auth (public key as user, secret key as password), shared
 * by the source that reads traces and the publisher that writes scores.
 */

export interface LangfuseOptions {
  /** The Langfuse host, e.g. `https://cloud.langfuse.com` or a self-hosted URL. */
  endpoint: string
  publicKey: string
  secretKey: string
  retry?: RetryOptions
}

export interface LangfuseClient {
  readonly endpoint: string
  /** A request under /api/public; 401/403 and other 4xx become INFRA_FAILURE naming the endpoint, never a key. */
  request(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown): Promise<HttpAnswer>
}

export function createLangfuseClient(options: LangfuseOptions): LangfuseClient {
  const endpoint = options.endpoint.replace(/\/+$/, '')
  if (!/^https?:\/\//.test(endpoint)) {
    throw new AgentEvalOpsError(
      'USAGE',
      `Langfuse endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`,
    )
  }
  if (options.publicKey === '' || options.secretKey === '') {
    throw new AgentEvalOpsError('SECRET_MISSING', `Langfuse at ${endpoint} needs a public and a secret key`, {
      hint: 'set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY',
    })
  }
  const authorization = `Basic ${Buffer.from(`${options.publicKey}:${options.secretKey}`).toString('base64')}`
  return {
    endpoint,
    async request(method, path, signal, body) {
      const url = `${endpoint}/api/public${path}`
      const what = `Langfuse ${method} ${endpoint}/api/public${path.replace(/\?.*$/, '')}`
      const response = await fetchWithRetry(
        {
          what,
          url,
          init: () =>
            Promise.resolve({
              method,
              headers: {
                authorization,
                accept: 'application/json',
                ...(body === undefined ? {} : { 'content-type': 'application/json' }),
              },
              ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            }),
          secrets: [options.secretKey],
        },
        signal,
        options.retry,
      )
      if (response.status === 401 || response.status === 403) {
        throw new AgentEvalOpsError(
          'INFRA_FAILURE',
          `${what}: the keys were refused (HTTP ${response.status})`,
          {
            hint: 'check LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY belong to the project at this endpoint',
          },
        )
      }
      if (response.status === 404 && method === 'GET') return response
      if (response.status >= 400) {
        throw new AgentEvalOpsError(
          'INFRA_FAILURE',
          `${what}: HTTP ${response.status}${snippet(response.body)}`,
          { hint: 'the request was refused and is not retried; check the endpoint and the data sent' },
        )
      }
      return response
    },
  }
}

/** A JSON body, or INFRA_FAILURE naming what returned something else. */
export function jsonBody(response: HttpAnswer, what: string): unknown {
  try {
    return JSON.parse(response.body) as unknown
  } catch {
    throw new AgentEvalOpsError('INFRA_FAILURE', `${what} answered with a body that is not JSON`, {
      hint: 'check the endpoint is a Langfuse server',
    })
  }
}
