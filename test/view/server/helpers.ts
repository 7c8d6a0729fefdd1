// Shared by the view server's tests: real bundles in a temp runs folder, and raw HTTP requests to 127.0.0.1 (fetch
// would normalise `..` and encoded characters away before they reach the server; http.request sends them as given).
import { request } from 'node:http'
import { mkdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { buildBundle } from '../../bundles/fixtures.ts'

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request, its whole answer; `host` is the Host header to send (default: the server's own). */
export function get(
  port: number,
  path: string,
  options: { method?: string; host?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers },
        timeout: 30_000,
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`no answer to ${path} in 30 s`)))
    req.on('error', reject)
    req.end()
  })
}

export async function getJson<T>(port: number, path: string): Promise<T> {
  const reply = await get(port, path)
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.body}`)
  return JSON.parse(reply.body) as T
}

/**
 * A sealed, valid bundle named `runId` in `runsDir`, written by the real writer (test/bundles/fixtures.ts), with
 * its own work folder beside the runs folder for the trace files it is made from.
 */
export async function addBundle(runsDir: string, work: string, runId: string): Promise<string> {
  const scratch = join(work, `src-${runId}`)
  await mkdir(scratch, { recursive: true })
  const built = await buildBundle(scratch, { runId })
  const dir = join(runsDir, runId)
  await rename(built, dir)
  return dir
}
