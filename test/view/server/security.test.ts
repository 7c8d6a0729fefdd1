// agentevalops view's server over real HTTP on 127.0.0.1: where it listens, what it refuses (path traversal, other
// Host headers, methods other than GET/HEAD), and the headers every answer carries.
import { connect } from 'node:net'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startViewServer, type ViewServer } from '../../../src/view/server/index.ts'
import { RUN_ID, tempDir } from '../../bundles/fixtures.ts'
import { addBundle, get } from './helpers.ts'

const SECRET = 'the-secret-beside-the-runs-folder-4f1c'
let work: Awaited<ReturnType<typeof tempDir>>
let runsDir: string
let server: ViewServer

beforeAll(async () => {
  work = await tempDir('aeo-view-security-')
  runsDir = join(work.path, 'view-runs')
  await mkdir(runsDir)
  await addBundle(runsDir, work.path, RUN_ID)
  // Beside the runs folder: what a traversal would reach.
  await writeFile(join(work.path, 'secret.txt'), SECRET)
  await mkdir(join(work.path, 'outside'))
  await writeFile(join(work.path, 'outside', 'manifest.json'), SECRET)
  await writeFile(join(work.path, 'outside', 'metadata.json'), SECRET)
  // A symlink in the runs folder to a folder outside it, and one to the secret file.
  await symlink(join(work.path, 'outside'), join(runsDir, 'linked'), 'dir')
  await symlink(join(work.path, 'secret.txt'), join(runsDir, 'secret-link'))
  server = await startViewServer({ runsDir, port: 0, catalog: undefined })
}, 60_000)
afterAll(async () => {
  await server?.close()
  await work?.remove()
})

describe('where the server listens', () => {
  it('binds 127.0.0.1 by default and prints a URL on it', () => {
    expect(server.host).toBe('127.0.0.1')
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`)
  })

  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address

  it.skipIf(external === undefined)('refuses a connection on another interface of this machine', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({ host: external!, port: server.port, timeout: 5_000 })
      socket.on('connect', () => {
        socket.destroy()
        resolve('connected')
      })
      socket.on('timeout', () => {
        socket.destroy()
        resolve('timeout')
      })
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
    })
    expect(outcome).toBe('ECONNREFUSED')
  })
})

describe('path traversal', () => {
  const attempts = [
    '/../secret.txt',
    '/runs/../../secret.txt',
    '/runs/..%2f..%2fsecret.txt/report',
    '/runs/%2e%2e/report',
    '/runs/%2E%2E%2F%2E%2E%2Fsecret.txt/report',
    '/runs/..%2Fsecret.txt',
    '/api/runs/..%2F..%2Fsecret.txt',
    '/api/runs/%2e%2e',
    '/runs/%2Fetc%2Fpasswd/report',
    `/runs/${encodeURIComponent(join(work?.path ?? '/tmp', 'secret.txt'))}/report`,
    '/runs/..\\..\\secret.txt/report',
    '/runs/%5c..%5csecret.txt/report',
    '/runs/linked/report',
    '/api/runs/linked',
    '/runs/linked',
    '/runs/secret-link/report',
    '/api/runs/secret-link',
    `/runs/${RUN_ID}%00/report`,
    `/runs/${RUN_ID}%00../../secret.txt/report`,
    `/runs/${RUN_ID}/../../secret.txt`,
    `/runs/${RUN_ID}/traces.jsonl`,
    `/runs/${RUN_ID}/metadata.json`,
    `/runs/${RUN_ID}/report.html`,
    '/runs/.agentevalops/report',
    '/api/runs/.staging',
    '//etc/passwd',
    '/secret.txt',
  ]

  it.each(attempts)('%s → 404, nothing from outside the runs folder', async (path) => {
    const reply = await get(server.port, path)
    expect(reply.status).toBe(404)
    expect(reply.body).not.toContain(SECRET)
  })

  it('lists neither symlink among the runs, and serves no byte of the secret anywhere', async () => {
    const runs = await get(server.port, '/api/runs')
    expect(runs.status).toBe(200)
    const names = (JSON.parse(runs.body) as { runs: { run: string }[] }).runs.map((r) => r.run)
    expect(names).toEqual([RUN_ID])
    for (const path of ['/', '/api/runs', `/api/runs/${RUN_ID}`, `/runs/${RUN_ID}/report`]) {
      expect((await get(server.port, path)).body).not.toContain(SECRET)
    }
  })

  it('serves the run it knows by its name', async () => {
    expect((await get(server.port, `/api/runs/${RUN_ID}`)).status).toBe(200)
    expect((await get(server.port, `/runs/${RUN_ID}/report`)).status).toBe(200)
    expect(
      (await get(server.port, `/runs/${RUN_ID}/tasks/${encodeURIComponent('toy/task-0')}/trials/1`)).status,
    ).toBe(200)
  })
})

describe('requests the server refuses', () => {
  it.each(['evil.example', `evil.example:${0}`, 'rebind.attacker.test', '127.0.0.1.nip.io'])(
    'a Host header of another name (%s, DNS rebinding) → 403',
    async (name) => {
      const host = name.includes(':') ? name.replace(':0', `:${server.port}`) : `${name}:${server.port}`
      const reply = await get(server.port, '/api/runs', { host })
      expect(reply.status).toBe(403)
      expect(reply.body).not.toContain(RUN_ID)
    },
  )

  it('a Host header of the right name at another port → 403', async () => {
    expect((await get(server.port, '/api/runs', { host: `127.0.0.1:${server.port + 1}` })).status).toBe(403)
  })

  it('accepts localhost and the bound address', async () => {
    expect((await get(server.port, '/api/runs', { host: `localhost:${server.port}` })).status).toBe(200)
    expect((await get(server.port, '/api/runs', { host: `127.0.0.1:${server.port}` })).status).toBe(200)
  })

  it.each(['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'])('%s → 405, GET and HEAD only', async (method) => {
    const reply = await get(server.port, '/api/runs', { method })
    expect(reply.status).toBe(405)
    expect(reply.headers.allow).toBe('GET, HEAD')
  })

  it('HEAD answers with headers and no body', async () => {
    const reply = await get(server.port, '/api/runs', { method: 'HEAD' })
    expect(reply.status).toBe(200)
    expect(reply.body).toBe('')
  })
})

describe('headers', () => {
  it('every answer: nosniff, no referrer, no CORS even when asked cross-origin', async () => {
    for (const path of ['/', '/api/runs', `/runs/${RUN_ID}/report`, '/nothing-here', '/../x']) {
      const reply = await get(server.port, path, { headers: { origin: 'https://evil.example' } })
      expect(reply.headers['x-content-type-options'], path).toBe('nosniff')
      expect(reply.headers['referrer-policy'], path).toBe('no-referrer')
      expect(
        Object.keys(reply.headers).filter((h) => h.startsWith('access-control-')),
        path,
      ).toEqual([])
    }
  })

  it('the app page: a hash CSP for its inline script and style, fetches to itself only', async () => {
    const reply = await get(server.port, '/trends')
    expect(reply.status).toBe(200)
    const csp = String(reply.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/)
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(reply.body).toContain('<main id="app"></main>')
    // The same policy is in the page, for a copy saved to disk, but for frame-ancestors: a meta policy cannot carry it
    // (the browser ignores it there, and says so in the console).
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(reply.body)?.[1]
    expect(meta?.replace(/&#39;/g, "'")).toBe(csp.replace("; frame-ancestors 'none'", ''))
  })

  it('the report page: the renderer’s own policy in the header too', async () => {
    const reply = await get(server.port, `/runs/${RUN_ID}/report`)
    const csp = String(reply.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toMatch(/script-src 'sha256-/)
    expect(csp).toContain("frame-ancestors 'none'")
  })
})
