// A window whose traces weigh far more than the job's heap may hold: the built CLI as a child process under a small
// --max-old-space-size, the seed's traces API and publisher on 127.0.0.1. A job that kept the window's traces (the
// seed's does: it lists them all, then scores) runs out of heap and dies; ours holds a page and the traces in
// flight, so it scores and publishes every trace and writes a valid bundle.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { FullTrace } from '../../src/core/index.ts'
import { buildCli, type BuiltCli } from '../e2e/helpers.ts'
import { productionTrace } from '../monitor/support/traces.ts'
import { listenOnLoopback } from '../support/loopback-server.ts'
import { cleanEnv, expectOneValidBundle } from './helpers.ts'

const TRACES = 240
/** The LLM call's prompt, as production prompts are: retrieved documents, history. Parsed, then dropped. */
const PROMPT_BYTES = 512 * 1024
const HEAP_MB = 64

let cli: BuiltCli
const temps: string[] = []
beforeAll(async () => {
  cli = await buildCli()
}, 120_000)
afterAll(async () => {
  await cli?.remove()
  for (const dir of temps) await rm(dir, { recursive: true, force: true })
})

function heavyTrace(n: number): FullTrace {
  const trace = productionTrace(n)
  const llm = trace.spans.find((s) => s.ampAttributes.kind === 'llm')!
  // Distinct per trace, so no part of the window can be shared between traces.
  const filler = `${n} `.repeat(Math.ceil(PROMPT_BYTES / `${n} `.length)).slice(0, PROMPT_BYTES)
  llm.ampAttributes = {
    ...llm.ampAttributes,
    input: [{ role: 'user', content: `context: ${filler}\nwhere is order ${n}?` }],
    output: 'let me look that up',
    data: { model: 'gpt-4o-mini', vendor: 'openai' },
  }
  return trace
}

async function body(req: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += String(chunk)
  return text
}

it(`scores a window of ${TRACES} traces of ${PROMPT_BYTES / 1024} KiB each under a ${HEAP_MB} MB heap`, async () => {
  const runs = await mkdtemp(join(tmpdir(), 'aeo-monitor-memory-'))
  temps.push(runs)
  let servedBytes = 0
  const published: { individualScores: { traceId: string; score?: number }[] }[] = []
  const crashes: string[] = []
  const server = await listenOnLoopback(
    async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      if (req.method === 'GET' && url.pathname === '/api/v1/traces/export') {
        const offset = Number(url.searchParams.get('offset') ?? 0)
        const limit = Number(url.searchParams.get('limit') ?? 10)
        const traces: FullTrace[] = []
        for (let n = offset + 1; n <= Math.min(TRACES, offset + limit); n++) traces.push(heavyTrace(n))
        const text = JSON.stringify({ traces, totalCount: TRACES })
        servedBytes += Buffer.byteLength(text)
        res.writeHead(200, { 'content-type': 'application/json' }).end(text)
        return
      }
      if (req.method === 'POST' && url.pathname.startsWith('/api/v1/publisher/')) {
        published.push(JSON.parse(await body(req)) as (typeof published)[number])
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
        return
      }
      res.writeHead(404).end()
    },
    (p) => void crashes.push(p),
  )
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const evaluators = JSON.stringify([
      { identifier: 'trace-quality', displayName: 'Trace quality' },
      { identifier: 'regex-match', displayName: 'Answer ok', config: { pattern: '\\bok\\b' } },
    ])
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_MB}`,
        cli.entry,
        'monitor',
        ...['--monitor-name', 'support', '--organization', 'acme', '--project', 'helpdesk'],
        ...['--agent', 'support-agent', '--environment', 'prod', '--evaluators', evaluators],
        ...['--trace-start', '2026-01-31T00:00:00Z', '--trace-end', '2026-01-31T01:00:00Z'],
        ...['--traces-api-endpoint', base, '--monitor-id', 'mon-1', '--run-id', 'heavy-1'],
        ...['--publisher-endpoint', base, '--output', runs],
      ],
      { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const killer = setTimeout(() => child.kill('SIGKILL'), 150_000)
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    )
    clearTimeout(killer)

    expect(crashes).toEqual([])
    // The window is several times the heap: holding it is not possible, so what follows shows it was not held.
    expect(servedBytes).toBeGreaterThan(HEAP_MB * 1024 * 1024 * 1.5)
    expect(exit, `${stdout}\n${stderr}`).toEqual({ code: 0, signal: null })
    expect(stdout).toContain(`${TRACES} trace(s) fetched, ${TRACES} scored`)
    expect(published).toHaveLength(1)
    const scores = published[0]!.individualScores
    expect(scores).toHaveLength(TRACES * 2)
    expect(new Set(scores.map((s) => s.traceId)).size).toBe(TRACES)
    expect(scores.every((s) => typeof s.score === 'number')).toBe(true)

    await expectOneValidBundle(runs, 'heavy-1')
  } finally {
    server.close()
  }
}, 180_000)
