// SIGTERM during a 200-trace window, with the monitor command as a real process (test/monitor/fixtures/
// monitor-child.ts): it stops fetching, lets what is in flight finish, publishes what was scored to the test's
// 127.0.0.1 publisher, logs how many fetched traces were left out, writes a valid bundle and exits 0.
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { IncomingMessage, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { cleanEnv, expectOneValidBundle } from './helpers.ts'
import { REPO_ROOT } from '../e2e/helpers.ts'
import { listenOnLoopback } from '../support/loopback-server.ts'
import { seedFlags } from '../monitor/support/parts.ts'
import { productionTrace } from '../monitor/support/traces.ts'

let childEntry: string
let buildDir: string
const temps: string[] = []

beforeAll(async () => {
  const { build } = await import('esbuild')
  buildDir = join(
    REPO_ROOT,
    'node_modules',
    '.cache',
    'agentevalops-test',
    `monitor-child-${process.pid}-${Date.now()}`,
  )
  await mkdir(buildDir, { recursive: true })
  await writeFile(join(buildDir, 'package.json'), '{ "type": "module" }\n')
  childEntry = join(buildDir, 'monitor-child.js')
  await build({
    entryPoints: [join(REPO_ROOT, 'test', 'monitor', 'fixtures', 'monitor-child.ts')],
    outfile: childEntry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  })
}, 120_000)
afterAll(async () => {
  await rm(buildDir, { recursive: true, force: true })
  for (const dir of temps) await rm(dir, { recursive: true, force: true })
})

async function body(req: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += String(chunk)
  return text
}

it('SIGTERM during a 200-trace window: exit 0, the scored part published, the unscored count logged', async () => {
  const runs = await mkdtemp(join(tmpdir(), 'aeo-monitor-sigterm-'))
  temps.push(runs)
  const window = Array.from({ length: 200 }, (_, i) => productionTrace(i + 1))
  const published: { scores: { individual: { traceId: string } }[] }[] = []
  let pagesServed = 0
  let signalled = false
  const crashes: string[] = []
  let terminate = () => {}
  const server: Server = await listenOnLoopback(
    async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      if (req.method === 'GET' && url.pathname === '/traces') {
        const offset = Number(url.searchParams.get('offset'))
        pagesServed++
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ traces: window.slice(offset, offset + 10) }))
        // The third page: the job is well into the window, with traces in flight.
        if (pagesServed === 3 && !signalled) {
          signalled = true
          terminate()
        }
        return
      }
      if (req.method === 'POST' && url.pathname === '/scores') {
        published.push(JSON.parse(await body(req)) as (typeof published)[number])
        res.writeHead(200).end('{}')
        return
      }
      res.writeHead(404).end()
    },
    (p) => void crashes.push(p),
  )
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const child = spawn(
      process.execPath,
      [childEntry, ...seedFlags({ '--output': runs, '--grace': '30s' })],
      {
        env: cleanEnv({ MONITOR_TEST_URL: base, MONITOR_TEST_DELAY_MS: '150' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    terminate = () => void child.kill('SIGTERM')
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)))
    clearTimeout(killer)

    expect(crashes).toEqual([])
    expect(signalled).toBe(true)
    expect(code, `${stdout}\n${stderr}`).toBe(0)
    expect(published).toHaveLength(1)
    const scored = published[0]!.scores.length
    const fetched = pagesServed * 10
    expect(scored).toBeGreaterThan(0)
    expect(fetched, 'fetching stopped before the end of the window').toBeLessThan(200)
    const leftOut = fetched - scored
    expect(stderr).toContain(
      `stopped by a signal: ${leftOut} fetched trace(s) left unscored, and the rest of the window was not fetched; ` +
        `${scored} scored trace(s) published.`,
    )
    expect(stdout).toContain(`${fetched} trace(s) fetched, ${scored} scored`)
    expect(stdout).toContain(`published ${scored} score(s)`)
    const ids = published[0]!.scores.map((s) => s.individual.traceId)
    expect(new Set(ids).size).toBe(scored)

    await expectOneValidBundle(runs, 'run-1')
  } finally {
    server.close()
  }
}, 120_000)
