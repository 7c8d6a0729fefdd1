/**
 * A minimal OTLP/HTTP receiver on 127.0.0.1 (an ephemeral port) for export tests: it records every request and
 * answers with the scripted statuses in order, then 200 with an empty OTLP response.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedRequest {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: string
}

export interface ScriptedAnswer {
  status: number
  body?: string
  headers?: Record<string, string>
  /** Never answer (the client must time out). */
  hang?: boolean
}

export interface OtlpReceiver {
  url: string
  requests: ReceivedRequest[]
  close(): Promise<void>
}

const MAX_BODY_BYTES = 50 * 1024 * 1024

export async function startOtlpReceiver(script: ScriptedAnswer[] = []): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = []
  const answers = [...script]
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      const answer = answers.shift() ?? { status: 200, body: '{}' }
      if (answer.hang) return
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
      res.end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A 127.0.0.1 port that nothing listens on: bound, then released. */
export async function unusedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
