/**
 * A local fake of Langfuse's public API on 127.0.0.1, with the shapes of its published OpenAPI (Fern) definition:
 * `GET /api/public/traces` (page from 1, limit, fromTimestamp / toTimestamp, orderBy timestamp.asc, meta with
 * totalItems / totalPages), `GET /api/public/traces/{id}` (TraceWithFullDetails) and `POST /api/public/scores`
 * (CreateScoreRequest → { id }, upserting by id as Langfuse does). Basic auth is checked on every request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeTrace {
  id: string
  timestamp: string
  name: string
  input?: unknown
  output?: unknown
  observations: object[]
}

export interface LangfuseFake {
  url: string
  publicKey: string
  secretKey: string
  /** Every request's method and path with query. */
  requests: { method: string; url: string }[]
  /** Scores held, by id. */
  scores: Map<string, Record<string, unknown>>
  /** Statuses the next POST /scores answer with before the normal answers. */
  failNextScorePosts: number[]
  /** Trace ids whose detail is answered with a body that does not match the schema. */
  malformed: Set<string>
  /** Trace ids whose detail request is never answered; `onHeld` is told when one arrives. */
  held: Set<string>
  onHeld: ((traceId: string) => void) | undefined
  close(): Promise<void>
}

export async function startLangfuseFake(traces: readonly FakeTrace[]): Promise<LangfuseFake> {
  const publicKey = 'pk-lf-fake-public'
  const secretKey = 'sk-lf-fake-secret-0123456789'
  const expected = `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`
  const state = {
    requests: [] as { method: string; url: string }[],
    scores: new Map<string, Record<string, unknown>>(),
    failNextScorePosts: [] as number[],
    malformed: new Set<string>(),
    held: new Set<string>(),
    onHeld: undefined as ((traceId: string) => void) | undefined,
  }
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      state.requests.push({ method: req.method ?? '', url: `${url.pathname}${url.search}` })
      if (req.headers.authorization !== expected) {
        send(res, 401, { message: 'Invalid credentials' })
        return
      }
      if (req.method === 'GET' && url.pathname === '/api/public/traces') {
        const page = Number(url.searchParams.get('page') ?? '1')
        const limit = Number(url.searchParams.get('limit') ?? '50')
        const from = Date.parse(url.searchParams.get('fromTimestamp') ?? '1970-01-01T00:00:00Z')
        const to = Date.parse(url.searchParams.get('toTimestamp') ?? '2999-01-01T00:00:00Z')
        const matching = traces
          .filter((t) => Date.parse(t.timestamp) >= from && Date.parse(t.timestamp) < to)
          .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
        const data = matching.slice((page - 1) * limit, page * limit).map((t) => ({
          id: t.id,
          timestamp: t.timestamp,
          name: t.name,
          input: t.input,
          output: t.output,
          sessionId: null,
          release: null,
          version: null,
          userId: null,
          metadata: null,
          tags: [],
          public: false,
          environment: 'default',
          htmlPath: `/project/p/traces/${t.id}`,
          latency: 1.5,
          totalCost: 0.001,
          observations: t.observations.map((o) => (o as { id: string }).id),
          scores: [],
        }))
        send(res, 200, {
          data,
          meta: { page, limit, totalItems: matching.length, totalPages: Math.ceil(matching.length / limit) },
        })
        return
      }
      const detail = /^\/api\/public\/traces\/([^/]+)$/.exec(url.pathname)
      if (req.method === 'GET' && detail) {
        const id = decodeURIComponent(detail[1]!)
        const trace = traces.find((t) => t.id === id)
        if (!trace) {
          send(res, 404, { message: 'Trace not found' })
          return
        }
        if (state.held.has(id)) {
          fake.onHeld?.(id)
          return
        }
        if (state.malformed.has(id)) {
          send(res, 200, { id, timestamp: trace.timestamp, observations: 'not a list' })
          return
        }
        send(res, 200, {
          ...trace,
          sessionId: null,
          release: null,
          version: null,
          userId: null,
          metadata: null,
          tags: [],
          public: false,
          environment: 'default',
          htmlPath: `/project/p/traces/${id}`,
          latency: 1.5,
          totalCost: 0.001,
          scores: [],
        })
        return
      }
      if (req.method === 'POST' && url.pathname === '/api/public/scores') {
        const status = state.failNextScorePosts.shift()
        if (status !== undefined) {
          send(res, status, { message: 'scripted failure' })
          return
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
        // CreateScoreRequest: name and value are required; numeric scores carry a number.
        if (typeof body['name'] !== 'string' || typeof body['value'] !== 'number') {
          send(res, 400, { message: 'name and a numeric value are required' })
          return
        }
        const id = typeof body['id'] === 'string' ? body['id'] : `generated-${state.scores.size}`
        state.scores.set(id, body)
        send(res, 200, { id })
        return
      }
      send(res, 404, { message: 'not found' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const fake: LangfuseFake = {
    url: `http://127.0.0.1:${port}`,
    publicKey,
    secretKey,
    ...state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return fake
}
