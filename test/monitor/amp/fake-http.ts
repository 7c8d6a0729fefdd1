/**
 * A scripted HTTP service on 127.0.0.1 for the monitor wire tests: every request is recorded (method, path, query,
 * lower-cased headers, body) and answered by the test's `answer` function, in arrival order.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { listenOnLoopback } from '../../support/loopback-server.ts'

export interface SeenRequest {
  /** From 0, in arrival order. */
  index: number
  method: string
  path: string
  query: URLSearchParams
  headers: Record<string, string>
  body: string
}

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface FakeHttp {
  url: string
  requests: SeenRequest[]
  problems: string[]
  close(): Promise<void>
}

export async function startFakeHttp(
  answer: (request: SeenRequest) => Reply | Promise<Reply>,
): Promise<FakeHttp> {
  const requests: SeenRequest[] = []
  const problems: string[] = []
  const server: Server = await listenOnLoopback(
    async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value
      }
      const seen: SeenRequest = {
        index: requests.length,
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      requests.push(seen)
      const reply = await answer(seen)
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {})
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
      res.end(text)
    },
    (problem) => problems.push(problem),
  )
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    problems,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Records the waits the retry loop asks for, without sitting them out. */
export function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = []
  return {
    waits,
    sleep: (ms: number) => {
      waits.push(ms)
      return Promise.resolve()
    },
  }
}
