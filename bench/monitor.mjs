#!/usr/bin/env node
// `agentevalops monitor` over windows of 1,000 and 10,000 production traces: the seed's traces API and publisher
// served on 127.0.0.1 by this script, the built CLI as a child process (the real AMP source, scorer, bundle and
// publisher). Memory must be bounded by the page size, not by the window: the 1,000-trace window is the baseline
// measured in the same rounds. Per size: wall, CPU, peak RSS, the live heap (the most a full GC left, see
// heap-watch.mjs: what the job keeps, without the garbage V8 lets pile up between collections, which grows with a
// longer run whatever it keeps), traces/s; then the growth per trace of both, and the largest window once more under
// a fixed heap (AGENTEVALOPS_BENCH_MONITOR_HEAP_MB, default 64: a container's budget), beside the smallest under it,
// there with the heap also collected outright twice a second (its "retained" column: what the job keeps, without
// the garbage an incremental GC counts as live; those collections slow that row). AGENTEVALOPS_BENCH_ROUNDS rounds
// (default 3), medians.
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { measuredRun, median } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 3)
const sizes = (process.env.AGENTEVALOPS_BENCH_MONITOR_SIZES ?? '1000,10000').split(',').map(Number)
const heapMb = Number(process.env.AGENTEVALOPS_BENCH_MONITOR_HEAP_MB ?? 64)
const cli = join(root, 'dist', 'src', 'cli', 'index.js')
const heapWatch = join(root, 'bench', 'heap-watch.mjs')
const work = join(root, 'bench', '.work', 'monitor')
const WINDOW_START = Date.parse('2026-01-31T00:00:00Z')
const WINDOW_END = Date.parse('2026-01-31T01:00:00Z')

function fail(message) {
  console.error(`monitor bench: ${message}`)
  process.exit(1)
}

/** Trace n of a window of `size`: an agent span with an LLM call and two tool calls, spread over the hour. */
function trace(n, size) {
  const traceId = `bench-${String(n).padStart(6, '0')}`
  const start = WINDOW_START + Math.floor(((WINDOW_END - WINDOW_START) * n) / (size + 1))
  const at = (ms) => new Date(start + ms).toISOString()
  const span = (id, name, kind, from, to, parent, amp = {}) => ({
    traceId,
    spanId: `${traceId}-${id}`,
    parentSpanId: parent === null ? null : `${traceId}-${parent}`,
    name,
    service: 'support-agent',
    startTime: at(from),
    endTime: at(to),
    durationInNanos: (to - from) * 1e6,
    kind: 'INTERNAL',
    status: 'OK',
    attributes: {},
    ampAttributes: { kind, ...amp },
  })
  const order = { order: n }
  return {
    traceId,
    rootSpanId: `${traceId}-root`,
    rootSpanName: 'support-agent',
    startTime: at(0),
    endTime: at(1500),
    spans: [
      span('root', 'support-agent', 'agent', 0, 1500, null, { input: `where is order ${n}?` }),
      span('llm', 'chat gpt-4o-mini', 'llm', 10, 700, 'root', {
        input: [{ role: 'user', content: `where is order ${n}?` }],
        output: 'let me look that up',
        data: { model: 'gpt-4o-mini', vendor: 'openai', tokenUsage: { inputTokens: 120, outputTokens: 30 } },
      }),
      span('t1', 'lookup_order', 'tool', 710, 900, 'root', {
        input: order,
        output: { status: 'shipped' },
        data: { name: 'lookup_order' },
      }),
      span('t2', 'track_parcel', 'tool', 910, 1200, 'root', {
        input: order,
        output: { eta: '2 days' },
        data: { name: 'track_parcel' },
      }),
    ],
    tokenUsage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    status: { errorCount: 0 },
    input: `where is order ${n}?`,
    output: n % 4 === 0 ? 'sorry, I do not know' : `order ${n} is ok and on its way`,
  }
}

/** The seed's traces API over a window of `size` generated traces (limit/offset, totalCount); the publisher. */
async function startServers(size) {
  const published = { requests: 0, scores: 0 }
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1')
    if (req.method === 'GET' && url.pathname === '/api/v1/traces/export') {
      const offset = Number(url.searchParams.get('offset') ?? 0)
      const limit = Number(url.searchParams.get('limit') ?? 10)
      const traces = []
      for (let n = offset + 1; n <= Math.min(size, offset + limit); n++) traces.push(trace(n, size))
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ traces, totalCount: size }))
      return
    }
    if (req.method === 'POST' && url.pathname.startsWith('/api/v1/publisher/')) {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        published.requests++
        published.scores += JSON.parse(body).individualScores.length
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
      })
      return
    }
    res.writeHead(404)
    res.end()
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}`
  return { url, published, close: () => new Promise((resolve) => server.close(resolve)) }
}

const EVALUATORS = JSON.stringify([
  { identifier: 'trace-quality', displayName: 'Trace quality' },
  { identifier: 'regex-match', displayName: 'Answer ok', config: { pattern: '\\bok\\b' } },
])

async function window(size, round, nodeArgs = []) {
  const servers = await startServers(size)
  const output = join(work, `runs-${size}`)
  mkdirSync(output, { recursive: true })
  const runId = `bench-${size}-${round}`
  const watchFile = join(work, `heap-${size}-${round}.json`)
  try {
    const figures = await measuredRun(
      [
        process.execPath,
        '--import',
        heapWatch,
        ...nodeArgs,
        // e.g. --heap-prof, to see what a window holds
        ...(process.env.AGENTEVALOPS_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
        cli,
        'monitor',
        ...['--monitor-name', 'bench', '--organization', 'acme', '--project', 'helpdesk'],
        ...['--agent', 'support-agent', '--environment', 'prod', '--evaluators', EVALUATORS],
        ...['--trace-start', new Date(WINDOW_START).toISOString()],
        ...['--trace-end', new Date(WINDOW_END).toISOString()],
        ...['--traces-api-endpoint', servers.url, '--monitor-id', 'bench', '--run-id', runId],
        ...['--publisher-endpoint', servers.url, '--output', output],
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          CI: 'true',
          AGENTEVALOPS_HEAP_WATCH_FILE: watchFile,
          ...(nodeArgs.includes('--expose-gc')
            ? { AGENTEVALOPS_HEAP_WATCH_SAMPLE_MS: String(SAMPLE_MS) }
            : {}),
        },
        timeoutMs: 900_000,
      },
    )
    // Every trace scored by both evaluators and published once: a bench that measured a failed window would lie.
    if (servers.published.requests !== 1)
      fail(`${size}: ${servers.published.requests} publish requests, not 1`)
    if (servers.published.scores !== size * 2)
      fail(`${size}: ${servers.published.scores} scores, not ${size * 2}`)
    // And its bundle whole: every trace a trial, the files as validate-bundle checks them (first round only).
    if (round === 0) {
      const check = spawnSync(process.execPath, [cli, 'validate-bundle', join(output, runId)], {
        encoding: 'utf8',
      })
      if (check.status !== 0) fail(`${size}: the window's bundle is invalid:\n${check.stdout}${check.stderr}`)
    }
    const { peakLiveBytes, fullGcs, retainedBytes } = JSON.parse(readFileSync(watchFile, 'utf8'))
    return {
      ...figures,
      liveMb: peakLiveBytes / 1048576,
      fullGcs,
      retainedMb: retainedBytes === null ? null : retainedBytes / 1048576,
    }
  } finally {
    await servers.close()
    for (const name of readdirSync(output)) rmSync(join(output, name), { recursive: true, force: true })
  }
}

if (sizes.length < 2) fail('AGENTEVALOPS_BENCH_MONITOR_SIZES needs two sizes: the first is the baseline')
rmSync(work, { recursive: true, force: true })
const base = sizes[0]
const last = sizes[sizes.length - 1]
// Under the cap the heap is also collected outright every SAMPLE_MS (heap-watch.mjs): the most it then held is
// what the job keeps, without the garbage an incremental GC counts as live.
const SAMPLE_MS = 500
const capped = [`--max-old-space-size=${heapMb}`, '--expose-gc']
const results = new Map(sizes.map((s) => [s, []]))
const underCap = new Map([base, last].map((s) => [s, []]))
for (let round = 0; round < rounds; round++) {
  for (const size of sizes) results.get(size).push(await window(size, round))
  for (const size of underCap.keys()) underCap.get(size).push(await window(size, round, capped))
}

const med = (fs, key) => median(fs.map((f) => f[key]))
const baseRss = med(results.get(base), 'peakMb')
console.log(
  `monitor bench (${new Date().toISOString()}): ${rounds} rounds, medians; the seed's traces API on 127.0.0.1, pages of 10`,
)
console.log(
  '| traces | heap | wall | cpu | peak RSS (tree) | live heap | retained | traces/s | RSS vs the smallest window |',
)
console.log('|---|---|---|---|---|---|---|---|---|')
/** One size's rounds, its RSS ratio taken round by round against the smallest window of the same heap setting. */
const row = (size, runs, heap) => {
  const fs = runs.get(size)
  const wallMs = med(fs, 'wallMs')
  const peakMb = med(fs, 'peakMb')
  const ratio = median(fs.map((f, i) => f.peakMb / runs.get(base)[i].peakMb))
  console.log(
    `| ${size} | ${heap} | ${wallMs.toFixed(0)} ms | ${med(fs, 'cpuMs').toFixed(0)} ms | ${peakMb.toFixed(1)} MiB | ` +
      `${med(fs, 'liveMb').toFixed(1)} MiB (${med(fs, 'fullGcs')} full GCs) | ` +
      `${fs[0].retainedMb === null ? '–' : `${med(fs, 'retainedMb').toFixed(1)} MiB`} | ${((size / wallMs) * 1000).toFixed(0)} | ` +
      `${ratio.toFixed(3)}× |`,
  )
}
for (const size of sizes) row(size, results, 'default')
for (const size of underCap.keys()) row(size, underCap, `${heapMb} MB`)
const perTrace = (runs, key) =>
  ((med(runs.get(last), key) - med(runs.get(base), key)) * 1024) / Math.max(1, last - base)
console.log(
  `    growth per trace, ${base} → ${last}: peak RSS ${perTrace(results, 'peakMb').toFixed(2)} KiB, ` +
    `live heap ${perTrace(results, 'liveMb').toFixed(2)} KiB (baseline RSS ${baseRss.toFixed(1)} MiB); ` +
    `under ${heapMb} MB: peak RSS ${perTrace(underCap, 'peakMb').toFixed(2)} KiB, ` +
    `retained ${perTrace(underCap, 'retainedMb').toFixed(2)} KiB (forced full GC every ${SAMPLE_MS} ms)`,
)
