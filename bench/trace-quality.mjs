#!/usr/bin/env node
// Trace-quality benchmark: analyzeTraceQuality over synthetic traces of 5k, 50k and 500k events. The analysis is
// meant to be linear, so the time per event should stay flat as traces grow 100×; the ratio of per-event times
// (500k / 5k) says how flat. Expect it somewhat above 1 from the hardware alone: at 5k events everything the
// analysis touches stays in the CPU caches, at 500k its hash tables do not. A loop hidden in the middle of the 5k
// trace must be found, with nothing else flagged in it, or the bench fails.
//
// Runs the built package (dist/); AGENTEVALOPS_BENCH_MODULE=<path> runs any module exporting analyzeTraceQuality
// instead (e.g. an esbuild bundle of src/evaluators/trace-quality/index.ts).
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { prng } from './prng.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const override = process.env.AGENTEVALOPS_BENCH_MODULE
const modulePath = override ? resolve(override) : join(root, 'dist', 'src', 'index.js')

function fail(message) {
  console.error(`trace-quality bench: ${message}`)
  process.exit(1)
}

if (!existsSync(modulePath)) {
  fail(`${modulePath} does not exist. Run \`npm run build\` first (or set AGENTEVALOPS_BENCH_MODULE).`)
}
const { analyzeTraceQuality } = await import(pathToFileURL(modulePath).href)
if (typeof analyzeTraceQuality !== 'function') {
  fail(
    `${modulePath} does not export analyzeTraceQuality. Run \`npm run build\` to rebuild dist/ from the current ` +
      'sources (or set AGENTEVALOPS_BENCH_MODULE).',
  )
}

const T0 = Date.parse('2025-01-01T00:00:00.000Z')
const WORDS = [
  'invoice',
  'customer',
  'shipment',
  'warehouse',
  'refund',
  'ledger',
  'region',
  'quarter',
  'supplier',
]
const TOOLS = {
  search: (r, n) => ({ query: `${WORDS[n % WORDS.length]} ${n}`, limit: 1 + Math.floor(r() * 20) }),
  read_file: (_r, n) => ({ path: `/data/${WORDS[n % WORDS.length]}/${n}.json` }),
  run_sql: (r, n) => ({
    sql: `select * from orders where id = ${n}`,
    timeoutMs: 1000 * (1 + Math.floor(r() * 5)),
  }),
  fetch_url: (_r, n) => ({
    url: `https://example.test/api/items/${n}`,
    headers: { accept: 'application/json' },
  }),
}
const TOOL_NAMES = Object.keys(TOOLS)

/**
 * A trace of about `size` events in the shape real runs have: a model call, then a tool call and its result, now
 * and then a plan or an observation; every call asks for something new, so the only finding is the loop injected
 * at `loopAt` (a 2-call cycle repeated 4 times with the same results). Returns the events and the injected calls'
 * steps.
 */
function buildTrace(size, loopAt, seed) {
  const r = prng(seed)
  const events = []
  const loopSteps = []
  const push = (kind, payload) => {
    const step = events.length
    events.push({
      runId: 'run-bench',
      taskId: 'task-bench',
      trial: 0,
      step,
      ts: new Date(T0 + step * 50).toISOString(),
      kind,
      payload,
      costDeltaUsd: kind === 'agent.model_call' ? 0.0003 : 0,
      tokensDelta: kind === 'agent.model_call' ? 400 : 0,
      spanId: '00000000000000ab',
    })
    return step
  }
  let n = 0
  let injected = false
  push('agent.plan', { text: 'look up the records, cross-check them, then summarise' })
  while (events.length < size - 2) {
    if (!injected && events.length >= loopAt) {
      injected = true
      for (let rep = 0; rep < 4; rep++) {
        loopSteps.push(push('agent.tool_call', { tool: 'search', args: { query: 'stuck query', limit: 5 } }))
        push('agent.tool_result', { tool: 'search', result: { hits: [] } })
        loopSteps.push(push('agent.tool_call', { tool: 'read_file', args: { path: '/data/missing.json' } }))
        push('agent.tool_result', { tool: 'read_file', result: { error: 'ENOENT' }, isError: true })
      }
      continue
    }
    n++
    const tool = TOOL_NAMES[Math.floor(r() * TOOL_NAMES.length)]
    push('agent.model_call', {
      model: 'bench-model',
      inputTokens: 300,
      outputTokens: 100,
      text: `checking ${WORDS[n % WORDS.length]} ${n} next`,
    })
    push('agent.tool_call', { tool, args: TOOLS[tool](r, n), callId: `call-${n}` })
    push('agent.tool_result', {
      tool,
      callId: `call-${n}`,
      result: {
        id: n,
        status: 'ok',
        rows: [
          { name: `${WORDS[(n + 1) % WORDS.length]}-${n}`, amount: Math.round(r() * 100_000) / 100 },
          { name: `${WORDS[(n + 2) % WORDS.length]}-${n}`, amount: Math.round(r() * 100_000) / 100 },
        ],
      },
    })
    if (r() < 0.15) push('agent.observation', { text: `record ${n} looks consistent` })
  }
  push('agent.model_call', { model: 'bench-model', text: 'summarising the records' })
  push('agent.final_answer', { answer: `Checked ${n} records; the ledger matches except record 7.` })
  return { events, loopSteps }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * Wall time, and the CPU time of the process (all threads, so concurrent GC work counts): on a busy machine the
 * wall time of a long run also measures the neighbours, while CPU time mostly does not.
 */
function timed(events) {
  const cpu = process.cpuUsage()
  const started = process.hrtime.bigint()
  const report = analyzeTraceQuality(events)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  const used = process.cpuUsage(cpu)
  return { ms, cpuMs: (used.user + used.system) / 1000, report }
}

/**
 * The first run is timed on its own: an evaluator may well run cold. Then warm-up runs (at least 3, and at least
 * 300 ms of them) let the JIT settle, so the median compares sizes, not compilation.
 */
function measure(events, rounds) {
  const first = timed(events).ms
  let spent = 0
  for (let i = 0; i < 3 || spent < 300; i++) spent += timed(events).ms
  const runs = Array.from({ length: rounds }, () => timed(events))
  return {
    first,
    ms: median(runs.map((r) => r.ms)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    report: runs[0].report,
  }
}

/**
 * The baseline, measured in the same run: serializing every event once, the least work any trace consumer (the
 * trace store itself) does. The ratio to it says what the analysis costs beyond reading the trace.
 */
function serializeMs(events, rounds) {
  const once = () => {
    const started = process.hrtime.bigint()
    let bytes = 0
    for (const e of events) bytes += JSON.stringify(e).length
    if (bytes === 0) fail('nothing serialized')
    return Number(process.hrtime.bigint() - started) / 1e6
  }
  once()
  return median(Array.from({ length: rounds }, once))
}

const sizes = [
  { size: 5_000, rounds: 7 },
  { size: 50_000, rounds: 7 },
  { size: 500_000, rounds: 3 },
]
const rows = []
for (const { size, rounds } of sizes) {
  const { events, loopSteps } = buildTrace(size, Math.floor(size / 2), 42)
  const { first, ms, cpuMs, report } = measure(events, rounds)
  const baselineMs = serializeMs(events, rounds)
  const nsPerEvent = (ms * 1e6) / events.length
  const cpuNsPerEvent = (cpuMs * 1e6) / events.length
  rows.push({ size: events.length, first, ms, baselineMs, nsPerEvent, cpuNsPerEvent, report, loopSteps })
  console.log(
    `${String(events.length).padStart(7)} events: median ${ms.toFixed(1).padStart(7)} ms ` +
      `(${nsPerEvent.toFixed(0).padStart(5)} ns/event), CPU ${cpuMs.toFixed(1).padStart(7)} ms ` +
      `(${cpuNsPerEvent.toFixed(0).padStart(5)} ns/event) over ${rounds} runs; first run ${first.toFixed(1)} ms; ` +
      `${report.findings.length} finding(s); heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB; ` +
      `× ${(ms / baselineMs).toFixed(2)} the time to JSON.stringify the same events`,
  )
}

const small = rows[0]
const middle = rows[1]
const large = rows.at(-1)
console.log(
  `\ntrace-quality benchmark: per-event time 500k / 5k = ${(large.nsPerEvent / small.nsPerEvent).toFixed(2)} ` +
    `wall, ${(large.cpuNsPerEvent / small.cpuNsPerEvent).toFixed(2)} CPU; 500k / 50k (both past the caches) = ` +
    `${(large.nsPerEvent / middle.nsPerEvent).toFixed(2)} wall (linear ≈ 1); ` +
    `5k trace ${small.ms.toFixed(1)} ms, ${small.first.toFixed(1)} ms on the first run (target < 50 ms)`,
)

const cycle = small.report.findings.find((f) => f.type === 'cycle')
const wanted = small.loopSteps.join(',')
if (!cycle || cycle.citations.join(',') !== wanted) {
  fail(
    `the loop hidden in the 5k trace at steps ${wanted} was not found; findings: ` +
      JSON.stringify(small.report.findings.slice(0, 5)),
  )
}
const others = small.report.findings.filter((f) => f !== cycle)
if (others.length > 0) fail(`unexpected findings in the 5k trace: ${JSON.stringify(others.slice(0, 5))}`)
console.log(`loop found in the 5k trace: ${cycle.message}`)
