import { afterEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../../src/core/index.ts'
import type { SourcedTrace } from '../../../src/monitor/contract.ts'
import { AMP_TRACE_PAGE_SIZE, createAmpTraceSource, type TokenProvider } from '../../../src/monitor/index.ts'
import { fullTrace, traceId } from './full-traces.ts'
import { recordingSleep, startFakeHttp, type FakeHttp, type Reply, type SeenRequest } from './fake-http.ts'

const WINDOW = { start: new Date('2026-03-04T10:00:00.000Z'), end: new Date('2026-03-04T11:00:00.000Z') }
const servers: FakeHttp[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) {
    expect(server.problems).toEqual([])
    await server.close()
  }
})

/** The traces service over `total` traces, paging as its OpenAPI spec says (limit/offset, totalCount). */
function exportPage(
  total: number,
  request: SeenRequest,
  paging: 'totalCount' | 'nextOffset' | 'short-page',
): Reply {
  const limit = Number(request.query.get('limit'))
  const offset = Number(request.query.get('offset'))
  const end = Math.min(total, offset + limit)
  const traces = Array.from({ length: Math.max(0, end - offset) }, (_, k) => fullTrace(offset + k))
  if (paging === 'totalCount') return { status: 200, body: { traces, totalCount: total } }
  if (paging === 'nextOffset') return { status: 200, body: { traces, nextOffset: end < total ? end : null } }
  return { status: 200, body: { traces } }
}

async function collect(pages: AsyncIterable<readonly SourcedTrace[]>): Promise<SourcedTrace[][]> {
  const out: SourcedTrace[][] = []
  for await (const page of pages) out.push([...page])
  return out
}

function idsOf(pages: SourcedTrace[][]): (string | null)[] {
  return pages.flat().map((item) => (item.ok ? item.trace.traceId : item.traceId))
}

const fixedToken: TokenProvider = { token: () => Promise.resolve('token-abc-123') }

function source(server: FakeHttp, options: Partial<Parameters<typeof createAmpTraceSource>[0]> = {}) {
  return createAmpTraceSource({
    endpoint: `${server.url}/`,
    organization: 'acme',
    project: 'travel',
    agent: 'booker-uid',
    environment: 'prod-uid',
    tokens: fixedToken,
    ...options,
  })
}

describe('createAmpTraceSource (the seed traces API)', () => {
  it.each(['totalCount', 'nextOffset', 'short-page'] as const)(
    'reads a 25-trace window in 3 pages of the default size, following %s paging',
    async (paging) => {
      const server = await startFakeHttp((request) => exportPage(25, request, paging))
      servers.push(server)
      const pages = await collect(source(server).pages(WINDOW, new AbortController().signal))

      expect(pages.map((p) => p.length)).toEqual([10, 10, 5])
      expect(idsOf(pages)).toEqual(Array.from({ length: 25 }, (_, i) => traceId(i)))
      expect(pages.flat().every((item) => item.ok)).toBe(true)
      expect(server.requests.map((r) => r.query.get('offset'))).toEqual(['0', '10', '20'])
      for (const request of server.requests) {
        expect(request.method).toBe('GET')
        expect(request.path).toBe('/api/v1/traces/export')
        expect(Object.fromEntries(request.query)).toMatchObject({
          startTime: '2026-03-04T10:00:00.000Z',
          endTime: '2026-03-04T11:00:00.000Z',
          componentUid: 'booker-uid',
          environmentUid: 'prod-uid',
          limit: String(AMP_TRACE_PAGE_SIZE),
        })
        expect(request.headers.authorization).toBe('Bearer token-abc-123')
      }
    },
  )

  it('follows totalCount past a page the service capped below the asked size', async () => {
    // The service caps limit at its own maximum; a short page then does not mean the end.
    const server = await startFakeHttp((request) => {
      const offset = Number(request.query.get('offset'))
      const traces = Array.from({ length: Math.min(3, 7 - offset) }, (_, k) => fullTrace(offset + k))
      return { status: 200, body: { traces, totalCount: 7 } }
    })
    servers.push(server)
    const pages = await collect(source(server, { pageSize: 5 }).pages(WINDOW, new AbortController().signal))
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1])
    expect(idsOf(pages)).toEqual(Array.from({ length: 7 }, (_, i) => traceId(i)))
  })

  it.each([
    ['with totalCount, as the seed service does', true],
    ['without totalCount', false],
  ])(
    'reads a service that ignores the paging and sends the whole window %s in one request',
    async (_, total) => {
      const all = Array.from({ length: 23 }, (_, i) => fullTrace(i))
      const server = await startFakeHttp(() => ({
        status: 200,
        body: total ? { traces: all, totalCount: all.length } : { traces: all },
      }))
      servers.push(server)
      const pages = await collect(source(server).pages(WINDOW, new AbortController().signal))
      expect(idsOf(pages)).toEqual(Array.from({ length: 23 }, (_, i) => traceId(i)))
      expect(server.requests).toHaveLength(1)
    },
  )

  it('yields only the traces that started in [start, end): one straddling a boundary belongs to one window', async () => {
    // Traces i start at 10:00 + i minutes; the service matches them by any span in the window, ends included.
    const server = await startFakeHttp(() => ({
      status: 200,
      body: { traces: [fullTrace(4), fullTrace(5), fullTrace(9), fullTrace(10)], totalCount: 4 },
    }))
    servers.push(server)
    const window = { start: new Date('2026-03-04T10:05:00.000Z'), end: new Date('2026-03-04T10:10:00.000Z') }
    const pages = await collect(source(server).pages(window, new AbortController().signal))
    expect(idsOf(pages)).toEqual([traceId(5), traceId(9)])
  })

  it('retries a 500 in the middle of the window and reads every trace once', async () => {
    let failedOnce = false
    const server = await startFakeHttp((request) => {
      if (request.query.get('offset') === '10' && !failedOnce) {
        failedOnce = true
        return { status: 500, body: { error: 'opensearch timed out' } }
      }
      return exportPage(30, request, 'totalCount')
    })
    servers.push(server)
    const { waits, sleep } = recordingSleep()
    const pages = await collect(
      source(server, { retry: { sleep } }).pages(WINDOW, new AbortController().signal),
    )

    expect(idsOf(pages)).toEqual(Array.from({ length: 30 }, (_, i) => traceId(i)))
    expect(server.requests.map((r) => r.query.get('offset'))).toEqual(['0', '10', '10', '20'])
    expect(waits).toEqual([2_000])
  })

  it('retries a request that gets no answer within the timeout, waiting with the real sleep', async () => {
    const server = await startFakeHttp((request) =>
      // The first request is never answered (the server holds it until it closes).
      request.index === 0 ? new Promise<Reply>(() => {}) : exportPage(4, request, 'totalCount'),
    )
    servers.push(server)
    const pages = await collect(
      source(server, { retry: { timeoutMs: 300, baseDelayMs: 1 } }).pages(
        WINDOW,
        new AbortController().signal,
      ),
    )
    expect(idsOf(pages)).toEqual(Array.from({ length: 4 }, (_, i) => traceId(i)))
    expect(server.requests).toHaveLength(2)
  })

  it('gives up after 3 attempts of 500 with INFRA_FAILURE naming the endpoint, after yielding the pages it read', async () => {
    const server = await startFakeHttp((request) =>
      request.query.get('offset') === '0'
        ? exportPage(20, request, 'totalCount')
        : { status: 503, body: 'busy' },
    )
    servers.push(server)
    const { waits, sleep } = recordingSleep()
    const read: SourcedTrace[][] = []
    const error = await (async () => {
      for await (const page of source(server, { retry: { sleep } }).pages(
        WINDOW,
        new AbortController().signal,
      ))
        read.push([...page])
    })().catch((e: unknown) => e)

    expect(read.map((p) => p.length)).toEqual([10])
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain(`${server.url}/api/v1/traces/export`)
    expect((error as Error).message).toContain('3 attempt(s)')
    expect((error as Error).message).not.toContain('token-abc-123')
    expect(server.requests).toHaveLength(4)
    expect(waits).toEqual([2_000, 4_000])
  })

  it('reads an empty window as no pages, in one request', async () => {
    const server = await startFakeHttp(() => ({ status: 200, body: { traces: [], totalCount: 0 } }))
    servers.push(server)
    const pages = await collect(source(server).pages(WINDOW, new AbortController().signal))
    expect(pages).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('skips a malformed trace with its id and the reason, and keeps the rest of its page', async () => {
    const broken = fullTrace(2)
    const spans = broken.spans as Record<string, unknown>[]
    spans[1] = { ...spans[1], startTime: 'yesterday' }
    const server = await startFakeHttp(() => ({
      status: 200,
      body: {
        traces: [fullTrace(0), fullTrace(1), broken, { rootSpanId: 'x' }, fullTrace(4)],
        totalCount: 5,
      },
    }))
    servers.push(server)
    const [page] = await collect(source(server).pages(WINDOW, new AbortController().signal))

    expect(page?.map((item) => item.ok)).toEqual([true, true, false, false, true])
    const skipped = page?.filter((item) => !item.ok) ?? []
    expect(skipped[0]).toMatchObject({ ok: false, traceId: traceId(2) })
    expect(skipped[0]?.ok === false && skipped[0].reason).toContain('spans[1].startTime')
    expect(skipped[1]).toMatchObject({ ok: false, traceId: null })
    expect(skipped[1]?.ok === false && skipped[1].reason).toContain('traceId')
  })

  it.each([
    ['not JSON', '<html>bad gateway</html>', 'not JSON'],
    ['without traces', { items: [] }, 'traces'],
    [
      'with a nextOffset that does not advance',
      { traces: [fullTrace(0)], nextOffset: 0 },
      'does not move past',
    ],
  ])('fails a page %s with INFRA_FAILURE naming the endpoint', async (_, body, detail) => {
    const server = await startFakeHttp(() => ({ status: 200, body }))
    servers.push(server)
    const error = await collect(source(server).pages(WINDOW, new AbortController().signal)).catch(
      (e: unknown) => e,
    )
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain(
      `traces API ${server.url}/api/v1/traces/export sent a malformed page`,
    )
    expect((error as Error).message).toContain(detail)
  })

  it('does not retry a 400 and says which flags to check', async () => {
    const server = await startFakeHttp(() => ({ status: 400, body: { error: 'componentUid is required' } }))
    servers.push(server)
    const { waits, sleep } = recordingSleep()
    const error = await collect(
      source(server, { retry: { sleep } }).pages(WINDOW, new AbortController().signal),
    ).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'INFRA_FAILURE')).toBe(true)
    expect((error as Error).message).toContain('HTTP 400')
    expect((error as Error).message).toContain('--agent')
    expect(server.requests).toHaveLength(1)
    expect(waits).toEqual([])
  })

  it('stops between pages once the signal aborts, keeping what it read', async () => {
    const server = await startFakeHttp((request) => exportPage(50, request, 'totalCount'))
    servers.push(server)
    const stop = new AbortController()
    const read: SourcedTrace[][] = []
    for await (const page of source(server).pages(WINDOW, stop.signal)) {
      read.push([...page])
      if (read.length === 2) stop.abort(new Error('SIGTERM'))
    }
    expect(read.map((p) => p.length)).toEqual([10, 10])
    expect(server.requests).toHaveLength(2)
  })

  it('calls the service without an Authorization header when there are no credentials', async () => {
    const server = await startFakeHttp((request) => exportPage(3, request, 'totalCount'))
    servers.push(server)
    await collect(source(server, { tokens: null }).pages(WINDOW, new AbortController().signal))
    expect(server.requests[0]?.headers.authorization).toBeUndefined()
  })

  it('refuses a page size the service would cap', () => {
    expect(() => createAmpTraceSource({ ...sourceOptions(), pageSize: 0 })).toThrow(/page size/)
    expect(() => createAmpTraceSource({ ...sourceOptions(), pageSize: 1001 })).toThrow(/1 to 1000/)
  })
})

function sourceOptions() {
  return {
    endpoint: 'http://127.0.0.1:9',
    organization: 'acme',
    project: 'travel',
    agent: 'a',
    environment: 'e',
    tokens: null,
  }
}
