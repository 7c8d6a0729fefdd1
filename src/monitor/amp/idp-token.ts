import * as z from 'zod'
import { AgentEvalOpsError } from '../../core/index.ts'
import { describeUrl, fetchWithRetry, type RetryOptions } from './http-retry.ts'

/** A bearer token for the seed's services, fetched when needed and reused while it is valid. */
export interface TokenProvider {
  token(signal: AbortSignal): Promise<string>
  /** The service refused `token` before its expiry (revoked, keys rotated): the next token() fetches a new one. */
  invalidate?(token: string): void
}

/** A token is replaced this long before it expires, so a request sent with it does not arrive expired. */
export const TOKEN_REFRESH_MARGIN_MS = 30_000
/** How long a token is used when the identity provider does not say (`expires_in` is only RECOMMENDED). */
export const TOKEN_DEFAULT_LIFETIME_MS = 300_000

export interface IdpTokenOptions {
  tokenUrl: string
  clientId: string
  clientSecret: string
  retry?: RetryOptions
  /** The clock, in ms since the epoch; injectable so a test can let a token expire without waiting. */
  now?: () => number
}

export const IDP_ENV = ['IDP_TOKEN_URL', 'IDP_CLIENT_ID', 'IDP_CLIENT_SECRET'] as const

// RFC 6749 §5.1; some providers send expires_in as a numeric string.
const TokenResponse = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.union([z.number().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]).optional(),
})
// RFC 6749 §5.2: `error` is an ASCII code; anything else in a refusal is not shown.
const TokenError = z.looseObject({
  error: z.string().regex(/^[\x20-\x7e]{1,64}$/),
  error_description: z.string().optional(),
})

/**
 * The job's credentials from the environment (the seed's deployment mounts them from a Secret): null when none of
 * IDP_TOKEN_URL, IDP_CLIENT_ID, IDP_CLIENT_SECRET is set (the services are then called without a token),
 * SECRET_MISSING when only some are.
 */
export function idpTokenProviderFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: Pick<IdpTokenOptions, 'retry' | 'now'> = {},
): TokenProvider | null {
  const present = IDP_ENV.filter((name) => (env[name] ?? '') !== '')
  if (present.length === 0) return null
  const missing = IDP_ENV.filter((name) => !present.includes(name))
  if (missing.length > 0) {
    throw new AgentEvalOpsError(
      'SECRET_MISSING',
      `${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} set but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not.`,
      {
        hint: `Set all of ${IDP_ENV.join(', ')} (OAuth2 client credentials), or none to call the services without a token.`,
      },
    )
  }
  const tokenUrl = env.IDP_TOKEN_URL as string
  if (!/^https?:\/\//i.test(tokenUrl) || !URL.canParse(tokenUrl)) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `IDP_TOKEN_URL is not an http(s) URL.`, {
      hint: 'Set it to the token endpoint of the identity provider, e.g. https://idp.example.com/oauth2/token.',
    })
  }
  return createIdpTokenProvider({
    tokenUrl,
    clientId: env.IDP_CLIENT_ID as string,
    clientSecret: env.IDP_CLIENT_SECRET as string,
    ...options,
  })
}

/**
 * OAuth2 client credentials grant (RFC 6749 §4.4) with client_secret_basic: the token is cached and replaced
 * TOKEN_REFRESH_MARGIN_MS before it expires; callers that ask while a replacement is on its way share it, so a
 * burst of requests costs one token request.
 */
export function createIdpTokenProvider(options: IdpTokenOptions): TokenProvider {
  const now = options.now ?? Date.now
  const where = describeUrl(options.tokenUrl)
  // §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded.
  const basic = Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString(
    'base64',
  )
  let cached: { token: string; refreshAt: number } | null = null
  let inFlight: Promise<string> | null = null

  const request = async (): Promise<string> => {
    const requestedAt = now()
    // Not the caller's signal: a caller that gives up must not fail the others waiting on the same token.
    const answer = await fetchWithRetry(
      {
        what: `token request to ${where}`,
        url: options.tokenUrl,
        init: () =>
          Promise.resolve({
            method: 'POST',
            headers: {
              authorization: `Basic ${basic}`,
              'content-type': 'application/x-www-form-urlencoded',
              accept: 'application/json',
            },
            body: 'grant_type=client_credentials',
          }),
        secrets: [options.clientSecret],
      },
      new AbortController().signal,
      options.retry,
    )
    if (answer.status < 200 || answer.status > 299) throw refused(where, answer.status, answer.body)
    const parsed = TokenResponse.safeParse(parseJson(answer.body))
    if (!parsed.success) {
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `token endpoint ${where} answered without an access_token.`,
        {
          hint: 'Check that IDP_TOKEN_URL is the OAuth2 token endpoint of the identity provider.',
        },
      )
    }
    const lifetimeMs =
      parsed.data.expires_in === undefined ? TOKEN_DEFAULT_LIFETIME_MS : parsed.data.expires_in * 1000
    cached = {
      token: parsed.data.access_token,
      refreshAt: requestedAt + lifetimeMs - TOKEN_REFRESH_MARGIN_MS,
    }
    return parsed.data.access_token
  }

  return {
    token(signal) {
      if (signal.aborted) return Promise.reject(abortedToken(where, signal.reason))
      if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token)
      inFlight ??= request().finally(() => {
        inFlight = null
      })
      return raceAbort(inFlight, signal, where)
    },
    invalidate(token) {
      // A request that went out with an older token must not drop the one that replaced it.
      if (cached?.token === token) cached = null
    },
  }
}

function refused(where: string, status: number, body: string): AgentEvalOpsError {
  const oauth = TokenError.safeParse(parseJson(body))
  const code = oauth.success ? ` ${oauth.data.error}` : ''
  if (status === 400 || status === 401 || status === 403) {
    return new AgentEvalOpsError(
      'CONFIG_INVALID',
      `the identity provider at ${where} refused the client credentials (HTTP ${status}${code}).`,
      {
        hint: 'Check IDP_CLIENT_ID and IDP_CLIENT_SECRET, and that the client may use the client_credentials grant.',
      },
    )
  }
  return new AgentEvalOpsError('INFRA_FAILURE', `token request to ${where} failed: HTTP ${status}${code}.`, {
    hint: 'Check IDP_TOKEN_URL.',
  })
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2)
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown
  } catch {
    return undefined
  }
}

function raceAbort(pending: Promise<string>, signal: AbortSignal, where: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(abortedToken(where, signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    pending.then(
      (token) => {
        signal.removeEventListener('abort', onAbort)
        resolve(token)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e instanceof Error ? e : new Error(String(e)))
      },
    )
  })
}

function abortedToken(where: string, cause: unknown): AgentEvalOpsError {
  return new AgentEvalOpsError('RUN_ABORTED', `token request to ${where} aborted`, { cause })
}
