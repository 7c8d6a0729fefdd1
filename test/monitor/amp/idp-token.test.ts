import { afterEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../../src/core/index.ts'
import {
  createAmpTraceSource,
  createIdpTokenProvider,
  idpTokenProviderFromEnv,
  TOKEN_REFRESH_MARGIN_MS,
} from '../../../src/monitor/index.ts'
import { fullTrace } from './full-traces.ts'
import { recordingSleep, startFakeHttp, type FakeHttp, type SeenRequest } from './fake-http.ts'

const servers: FakeHttp[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    expect(server.problems).toEqual([])
    await server.close()
  }
})

const CLIENT_ID = 'monitor-job'
const CLIENT_SECRET = 's3cr3t:with&odd=chars'
const NEVER = new AbortController().signal

/** An OAuth2 token endpoint that checks client_secret_basic and issues token-1, token-2… living `expiresIn` s. */
async function startIdp(expiresIn: number | undefined = 3600): Promise<FakeHttp> {
  let issued = 0
  const server = await startFakeHttp((request) => {
    if (!credentialsOk(request)) {
      return {
        status: 401,
        body: {
          error: 'invalid_client',
          error_description: `client authentication failed for ${CLIENT_SECRET}`,
        },
      }
    }
    issued++
    return {
      status: 200,
      body: {
        access_token: `token-${issued}`,
        token_type: 'Bearer',
        ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
      },
    }
  })
  servers.push(server)
  return server
}

/** RFC 6749 §2.3.1: base64 of the form-encoded id and secret joined by ':'. */
function credentialsOk(request: SeenRequest): boolean {
  const auth = request.headers.authorization ?? ''
  if (!auth.startsWith('Basic ')) return false
  const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')
  return (
    request.method === 'POST' &&
    request.headers['content-type'] === 'application/x-www-form-urlencoded' &&
    new URLSearchParams(request.body).get('grant_type') === 'client_credentials' &&
    decodeURIComponent((id ?? '').replace(/\+/g, ' ')) === CLIENT_ID &&
    decodeURIComponent((secret ?? '').replace(/\+/g, ' ')) === CLIENT_SECRET
  )
}

function env(idp: FakeHttp, secret = CLIENT_SECRET): Record<string, string> {
  return { IDP_TOKEN_URL: `${idp.url}/oauth2/token`, IDP_CLIENT_ID: CLIENT_ID, IDP_CLIENT_SECRET: secret }
}

describe('idpTokenProviderFromEnv (OAuth2 client credentials, client_secret_basic)', () => {
  it('gets a token with the client credentials and reuses it while it is valid', async () => {
    const idp = await startIdp()
    const tokens = idpTokenProviderFromEnv(env(idp))
    expect(tokens).not.toBeNull()
    expect(await tokens?.token(NEVER)).toBe('token-1')
    expect(await tokens?.token(NEVER)).toBe('token-1')
    expect(idp.requests).toHaveLength(1)
    expect(idp.requests[0]?.path).toBe('/oauth2/token')
  })

  it('refreshes exactly once when the token expires inside a run of the traces source', async () => {
    const idp = await startIdp(3600)
    let clock = Date.parse('2026-03-04T12:00:00Z')
    const tokens = idpTokenProviderFromEnv(env(idp), { now: () => clock })
    const seen: string[] = []
    const traces = await startFakeHttp((request) => {
      seen.push(request.headers.authorization ?? '')
      const offset = Number(request.query.get('offset'))
      // The run goes on past the token's life (less the margin) while page 2 is served.
      if (offset === 2) clock += 3600_000 - TOKEN_REFRESH_MARGIN_MS
      return { status: 200, body: { traces: [fullTrace(offset), fullTrace(offset + 1)], totalCount: 8 } }
    })
    servers.push(traces)
    const source = createAmpTraceSource({
      endpoint: traces.url,
      organization: 'acme',
      project: 'travel',
      agent: 'a',
      environment: 'e',
      tokens,
      pageSize: 2,
    })
    let read = 0
    for await (const page of source.pages({ start: new Date(0), end: new Date(clock) }, NEVER))
      read += page.length

    expect(read).toBe(8)
    expect(idp.requests).toHaveLength(2)
    expect(seen).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-2', 'Bearer token-2'])
  })

  it('gets a fresh token once when a service refuses one before its expiry, and reports a second refusal', async () => {
    const idp = await startIdp(3600)
    const tokens = idpTokenProviderFromEnv(env(idp))
    // The traces service has revoked token-1; token-2 and later are good.
    const traces = await startFakeHttp((request) =>
      request.headers.authorization === 'Bearer token-1'
        ? { status: 401, body: { error: 'token revoked' } }
        : { status: 200, body: { traces: [fullTrace(0)], totalCount: 1 } },
    )
    servers.push(traces)
    const options = { organization: 'o', project: 'p', agent: 'a', environment: 'e', tokens }
    const window = { start: new Date(0), end: new Date('2030-01-01T00:00:00Z') }
    let read = 0
    for await (const page of createAmpTraceSource({ endpoint: traces.url, ...options }).pages(window, NEVER))
      read += page.length
    expect(read).toBe(1)
    expect(traces.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2'])
    expect(idp.requests).toHaveLength(2)

    // A service that refuses every token: one fresh token is tried, then the refusal is reported.
    const refusing = await startFakeHttp(() => ({ status: 401, body: { error: 'unknown audience' } }))
    servers.push(refusing)
    const error = await (async () => {
      for await (const _ of createAmpTraceSource({ endpoint: refusing.url, ...options }).pages(
        window,
        NEVER,
      ));
    })().catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain('HTTP 401')
    expect((error as Error).message).toContain('IDP_')
    expect(refusing.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-2',
      'Bearer token-3',
    ])
  })

  it('keeps the token until TOKEN_REFRESH_MARGIN_MS before it expires, not longer', async () => {
    const idp = await startIdp(120)
    let clock = 1_000_000
    const tokens = createIdpTokenProvider({
      tokenUrl: `${idp.url}/oauth2/token`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      now: () => clock,
    })
    expect(await tokens.token(NEVER)).toBe('token-1')
    clock += 120_000 - TOKEN_REFRESH_MARGIN_MS - 1
    expect(await tokens.token(NEVER)).toBe('token-1')
    clock += 1
    expect(await tokens.token(NEVER)).toBe('token-2')
    expect(idp.requests).toHaveLength(2)
  })

  it('shares one token request among callers that ask at the same time', async () => {
    const idp = await startIdp()
    const tokens = idpTokenProviderFromEnv(env(idp))
    if (tokens === null) throw new Error('the IDP_* variables are all set')
    const got = await Promise.all(Array.from({ length: 6 }, () => tokens.token(NEVER)))
    expect(got).toEqual(Array.from({ length: 6 }, () => 'token-1'))
    expect(idp.requests).toHaveLength(1)
  })

  it('rejects wrong credentials with CONFIG_INVALID naming the endpoint, never the secret', async () => {
    const idp = await startIdp()
    const tokens = idpTokenProviderFromEnv(env(idp, 'wrong-secret-value'))
    const error = await tokens?.token(NEVER).catch((e: unknown) => e)

    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    const message = (error as Error).message
    expect(message).toContain(`${idp.url}/oauth2/token`)
    expect(message).toContain('HTTP 401 invalid_client')
    expect(message).toContain('IDP_CLIENT_SECRET')
    expect(message).not.toContain('wrong-secret-value')
    expect(message).not.toContain(Buffer.from(`${CLIENT_ID}:wrong-secret-value`).toString('base64'))
    expect(JSON.stringify(error)).not.toContain('wrong-secret-value')
    // A refusal is not retried: the same credentials would be refused again.
    expect(idp.requests).toHaveLength(1)
  })

  it('retries a token endpoint that answers 503 and redacts the secret an echoing server sends back', async () => {
    let calls = 0
    const idp = await startFakeHttp(() => {
      calls++
      return calls < 3
        ? { status: 503, body: `overloaded (${CLIENT_SECRET})` }
        : { status: 200, body: { access_token: 'token-after-retry', expires_in: '600' } }
    })
    servers.push(idp)
    const { waits, sleep } = recordingSleep()
    const tokens = idpTokenProviderFromEnv(env(idp), { retry: { sleep } })
    expect(await tokens?.token(NEVER)).toBe('token-after-retry')
    expect(waits).toEqual([2_000, 4_000])

    calls = -10
    const failing = idpTokenProviderFromEnv(env(idp), { retry: { sleep } })
    const error = await failing?.token(NEVER).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain('HTTP 503')
    expect((error as Error).message).not.toContain(CLIENT_SECRET)
  })

  it('fails a 200 without an access_token with INFRA_FAILURE naming the endpoint', async () => {
    const idp = await startFakeHttp(() => ({ status: 200, body: '<html>login</html>' }))
    servers.push(idp)
    const error = await idpTokenProviderFromEnv(env(idp))
      ?.token(NEVER)
      .catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain(`${idp.url}/oauth2/token answered without an access_token`)
  })

  it('is null when no IDP_* variable is set, and SECRET_MISSING naming what is missing when only some are', () => {
    expect(idpTokenProviderFromEnv({})).toBeNull()
    expect(idpTokenProviderFromEnv({ IDP_TOKEN_URL: '', PATH: '/bin' })).toBeNull()
    let error: unknown
    try {
      idpTokenProviderFromEnv({ IDP_TOKEN_URL: 'https://idp.example/token', IDP_CLIENT_ID: 'x' })
    } catch (e) {
      error = e
    }
    expect(isAgentEvalOpsError(error, 'SECRET_MISSING')).toBe(true)
    expect((error as Error).message).toContain('IDP_CLIENT_SECRET is not')
    expect(() =>
      idpTokenProviderFromEnv({
        IDP_TOKEN_URL: 'idp.example/token',
        IDP_CLIENT_ID: 'x',
        IDP_CLIENT_SECRET: 'y',
      }),
    ).toThrow(/IDP_TOKEN_URL is not an http\(s\) URL/)
  })

  it('rejects a caller that aborts without failing the others waiting on the same token', async () => {
    const idp = await startIdp()
    const tokens = idpTokenProviderFromEnv(env(idp))
    const stop = new AbortController()
    const first = tokens?.token(stop.signal)
    const second = tokens?.token(NEVER)
    stop.abort(new Error('SIGTERM'))
    const error = await first?.catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'RUN_ABORTED')).toBe(true)
    expect(await second).toBe('token-1')
  })
})
