#!/usr/bin/env node
// Validation benchmark: `agentevalops validate-bundle` on a ~1 GiB bundle (AGENTEVALOPS_BENCH_VALIDATE_MB, default
// 1024: the whole bundle's size), run as a child process. The bundle is what a long agent run leaves: mostly
// traces.jsonl (model calls, tool calls and results paired by callId, observations, a final answer, a terminal
// event, an evaluator score and a policy verdict per trial) and spans.jsonl (one OTLP request per trial: eval.task,
// benchmark.prepare, invoke_agent with a chat span per model call and an execute_tool span per tool call,
// benchmark.grade, eval.evaluator), beside a scores.json whose scores cite the trace's steps, metadata.json, report.md
// and a report.html. It is generated once per bench run, deterministically (a fixed seed), straight into a temporary
// folder that is removed afterwards (AGENTEVALOPS_BENCH_VALIDATE_DIR=<dir> writes it there and keeps it, or reuses
// the bundle already there: for profiling).
//
// Then validate-bundle runs AGENTEVALOPS_BENCH_VALIDATE_ROUNDS times (default 3); the medians of its wall time,
// throughput (bundle bytes / wall) and peak RSS (the child's VmHWM, polled) are printed against the targets:
// >= 150 MiB/s and < 200 MiB. A peak RSS over the target fails the bench (memory does not depend on the machine's
// load); throughput does, so it is printed, not enforced.
//
// Runs bin/agentevalops.js, i.e. the built package (dist/): `npm run build` first. AGENTEVALOPS_BENCH_CLI=<file>
// runs another entry instead (e.g. an esbuild bundle of src/cli/index.ts), and dist/ still writes scores.json.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { prng } from './prng.mjs'
import { median } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const targetMiB = Number(process.env.AGENTEVALOPS_BENCH_VALIDATE_MB ?? 1024)
const rounds = Number(process.env.AGENTEVALOPS_BENCH_VALIDATE_ROUNDS ?? 3)
const keptDir = process.env.AGENTEVALOPS_BENCH_VALIDATE_DIR
const cli = resolve(process.env.AGENTEVALOPS_BENCH_CLI ?? join(root, 'bin', 'agentevalops.js'))
const distIndex = join(root, 'dist', 'src', 'index.js')
const floorScript = join(root, 'bench', 'validate-floor.mjs')
const RSS_TARGET_MIB = 200
const THROUGHPUT_TARGET_MIB_S = 150
const TASKS = 500
const TRIALS_PER_TASK = 4
/** Of each trial's bytes, the share of traces.jsonl; spans.jsonl takes most of the rest. */
const TRACE_SHARE = 0.68
const RUN_ID = '0190f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b'
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const TS = '2025-01-02T03:04:05.000Z'
const START_NS = 1735787045000000000n
const MIB = 1024 * 1024

function fail(message) {
  console.error(`validate bench: ${message}`)
  process.exitCode = 1
}

if (!(targetMiB > 0) || !(rounds >= 1)) {
  fail('AGENTEVALOPS_BENCH_VALIDATE_MB and AGENTEVALOPS_BENCH_VALIDATE_ROUNDS must be positive numbers')
  process.exit()
}
if (!existsSync(cli)) {
  fail(`${cli} does not exist.`)
  process.exit()
}
if (!existsSync(distIndex)) {
  fail("dist/ does not exist: run `npm run build` first (it writes scores.json with the package's scorer).")
  process.exit()
}

const random = prng(7)
// Some words need escaping in JSON or are not ASCII: the parser's slow paths are part of a real trace.
const WORDS = [
  'the',
  'file',
  'test',
  'passes',
  'résumé',
  'naïve',
  '"quoted"',
  'line\nbreak',
  'tab\there',
  '→',
  '✓',
  'const',
  'return',
  'await',
  'import',
]
function text(chars) {
  let out = ''
  while (out.length < chars) out += `${WORDS[Math.floor(random() * WORDS.length)]} `
  return out
}
/** A pool of texts drawn once: writing a gigabyte must take seconds, not the minute fresh text would. */
const TEXTS = Array.from({ length: 512 }, () => text(200 + Math.floor(random() * 1200)))
const pick = () => TEXTS[Math.floor(random() * TEXTS.length)]

const BENCHMARK = { id: 'bench', version: '1.0.0', datasetChecksum: 'a'.repeat(64) }
const RUNNER = { name: 'mock-scripted', kind: 'mock', config: {} }
const TOOLS = ['read_file', 'write_file', 'run_tests', 'search']

function trialRecord(taskId, trial, eventCount, answerStep, usage) {
  return {
    runId: RUN_ID,
    benchmark: BENCHMARK,
    taskId,
    taskChecksum: 'b'.repeat(64),
    trial,
    outcome: 'passed',
    passed: true,
    result: {
      success: true,
      finalAnswer: '4',
      artifacts: [],
      error: null,
      totalCostUsd: usage.costUsd,
      totalTokens: usage.tokens,
      turns: usage.turns,
      wallSeconds: usage.wallSeconds,
      terminatedBy: 'completed',
    },
    scores: [
      {
        evaluatorId: 'exact-match',
        kind: 'deterministic',
        score: 1,
        passed: true,
        costUsd: 0,
        latencyMs: 1,
        explanation: 'exact match',
        citations: [answerStep],
        findings: [],
        error: null,
      },
    ],
    verdicts: [{ checkerId: 'tool-policy', verdict: 'PASS', findings: [] }],
    usage,
    runner: RUNNER,
    tracePath: `traces/${BENCHMARK.id}/${taskId}.t${trial}.jsonl`,
    eventCount,
    warnings: [],
    labels: { category: 'bench' },
  }
}

const attr = (key, value) => ({
  key,
  value:
    typeof value === 'string'
      ? { stringValue: value }
      : typeof value === 'boolean'
        ? { boolValue: value }
        : Number.isInteger(value)
          ? { intValue: value }
          : { doubleValue: value },
})
let spanCounter = 0
const nextSpanId = () => (++spanCounter).toString(16).padStart(16, '0')
function span(name, spanId, parentSpanId, startNs, endNs, attributes, kind = 1) {
  return {
    traceId: TRACE_ID,
    spanId,
    ...(parentSpanId === undefined ? {} : { parentSpanId }),
    name,
    kind,
    startTimeUnixNano: String(startNs),
    endTimeUnixNano: String(endNs),
    attributes: Object.entries(attributes).map(([k, v]) => attr(k, v)),
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    status: { code: 0 },
    links: [],
    droppedLinksCount: 0,
    flags: 257,
  }
}
const otlpLine = (spans) =>
  `${JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: [attr('service.name', 'agentevalops'), attr('service.version', '0.1.0')],
          droppedAttributesCount: 0,
        },
        scopeSpans: [{ scope: { name: 'agentevalops', version: '0.1.0' }, spans }],
      },
    ],
  })}\n`

/** Writes a file in large batches, hashing as it goes; returns its manifest entry. */
function writeHashed(dir, path, produce) {
  const fd = openSync(join(dir, path), 'w')
  const hash = createHash('sha256')
  let size = 0
  let batch = []
  let batchChars = 0
  const flush = () => {
    const bytes = Buffer.from(batch.join(''), 'utf8')
    hash.update(bytes)
    writeSync(fd, bytes)
    size += bytes.length
    batch = []
    batchChars = 0
  }
  try {
    produce((chunk) => {
      batch.push(chunk)
      batchChars += chunk.length
      if (batchChars >= 4 * MIB) flush()
    })
    flush()
  } finally {
    closeSync(fd)
  }
  return { path, sha256: hash.digest('hex'), size }
}

/**
 * One trial: its trace events (written), the spans drawn from them (pushed as one OTLP line) and its record.
 * Sizes are counted in characters, close enough to bytes for sizing.
 */
function writeTrial(taskId, trial, traceChars, writeTrace, writeSpans, runSpanId) {
  let step = 0
  let written = 0
  let ns = START_NS + BigInt(trial * 1_000_000_000)
  const tick = () => (ns += 1_000_000n)
  const taskSpanId = nextSpanId()
  const agentSpanId = nextSpanId()
  const agentSpans = []
  const usage = { tokens: 0, costUsd: 0, wallSeconds: 0, turns: 0 }
  const event = (kind, payload, extra = {}) => {
    const line = `${JSON.stringify({
      runId: RUN_ID,
      benchmark: BENCHMARK.id,
      taskId,
      trial,
      step,
      ts: TS,
      costDeltaUsd: extra.cost ?? 0,
      tokensDelta: extra.tokens ?? 0,
      spanId: extra.spanId ?? nextSpanId(),
      kind,
      payload,
    })}\n`
    written += line.length
    writeTrace(line)
    return step++
  }
  const taskStart = tick()
  event('agent.plan', { text: pick() })
  let call = 0
  while (written < traceChars) {
    const chatStart = tick()
    const inputTokens = 400 + Math.floor(random() * 600)
    const outputTokens = 50 + Math.floor(random() * 300)
    const chatId = nextSpanId()
    const modelStep = event(
      'agent.model_call',
      { model: 'mock-large', inputTokens, outputTokens, stopReason: 'tool_use', text: pick() },
      { tokens: inputTokens + outputTokens, cost: 0.0001, spanId: chatId },
    )
    usage.tokens += inputTokens + outputTokens
    usage.costUsd += 0.0001
    usage.turns += 1
    agentSpans.push(
      span(
        'chat mock-large',
        chatId,
        agentSpanId,
        chatStart,
        tick(),
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'mock-large',
          'gen_ai.usage.input_tokens': inputTokens,
          'gen_ai.usage.output_tokens': outputTokens,
          'gen_ai.response.finish_reasons': 'tool_use',
          'agentevalops.usage.cost_usd': 0.0001,
          'agentevalops.step': modelStep,
        },
        3,
      ),
    )
    const tool = TOOLS[call % TOOLS.length]
    const callId = `call_${taskId}_${trial}_${call++}`
    const toolId = nextSpanId()
    const toolStart = tick()
    const callStep = event(
      'agent.tool_call',
      { tool, args: { path: `src/${tool}.ts`, content: pick() }, callId },
      { spanId: toolId },
    )
    event('agent.tool_result', {
      tool,
      result: { ok: true, exitCode: 0, stdout: pick() },
      isError: false,
      callId,
    })
    agentSpans.push(
      span(`execute_tool ${tool}`, toolId, agentSpanId, toolStart, tick(), {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': callId,
        'agentevalops.step': callStep,
      }),
    )
    if (call % 3 === 0) event('agent.observation', { text: pick() })
  }
  const answerStep = event('agent.final_answer', { answer: '4' })
  event('agent.terminal', {
    terminatedBy: 'completed',
    success: true,
    error: null,
    finalAnswer: '4',
    totalTokens: usage.tokens,
    totalCostUsd: usage.costUsd,
    turns: usage.turns,
  })
  const agentEnd = tick()
  event('evaluator.score', {
    evaluatorId: 'exact-match',
    score: 1,
    passed: true,
    kind: 'deterministic',
    costUsd: 0,
    latencyMs: 1,
    explanation: 'exact match',
    citations: [answerStep],
    findings: [],
    error: null,
  })
  event('policy.verdict', { checkerId: 'tool-policy', verdict: 'PASS', findings: [] })
  usage.wallSeconds = Number(agentEnd - taskStart) / 1e9
  const trialAttrs = {
    'agentevalops.benchmark.id': BENCHMARK.id,
    'agentevalops.task.id': taskId,
    'agentevalops.trial': trial,
  }
  const end = tick()
  writeSpans(
    otlpLine([
      span('eval.task', taskSpanId, runSpanId, taskStart, end, {
        ...trialAttrs,
        'agentevalops.benchmark.version': BENCHMARK.version,
        'agentevalops.outcome': 'passed',
        'agentevalops.passed': true,
        'agentevalops.usage.tokens': usage.tokens,
        'agentevalops.usage.turns': usage.turns,
        'agentevalops.runner.name': RUNNER.name,
        'agentevalops.runner.kind': RUNNER.kind,
        'agentevalops.time_source': 'timing',
      }),
      span('benchmark.prepare', nextSpanId(), taskSpanId, taskStart, taskStart + 1000n, trialAttrs),
      span(`invoke_agent ${RUNNER.name}`, agentSpanId, taskSpanId, taskStart, agentEnd, {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': RUNNER.name,
        'agentevalops.usage.tokens': usage.tokens,
        'agentevalops.agent.terminated_by': 'completed',
      }),
      ...agentSpans,
      span('benchmark.grade', nextSpanId(), taskSpanId, agentEnd, end, trialAttrs),
      span('eval.evaluator exact-match', nextSpanId(), taskSpanId, agentEnd, end, {
        'agentevalops.evaluator.id': 'exact-match',
        'agentevalops.evaluator.kind': 'deterministic',
        'agentevalops.evaluator.score': 1,
        'agentevalops.passed': true,
      }),
    ]),
  )
  return trialRecord(taskId, trial, step, answerStep, usage)
}

async function buildBundle(dir) {
  const trials = []
  const perTrialChars = (targetMiB * MIB) / (TASKS * TRIALS_PER_TASK)
  const runSpanId = nextSpanId()
  const spanLines = []
  let spansChars = 0
  let events = 0
  const traces = writeHashed(dir, 'traces.jsonl', (write) => {
    for (let task = 0; task < TASKS; task++) {
      for (let trial = 0; trial < TRIALS_PER_TASK; trial++) {
        const record = writeTrial(
          `task-${task}`,
          trial,
          perTrialChars * TRACE_SHARE,
          write,
          (line) => {
            spanLines.push(line)
            spansChars += line.length
          },
          runSpanId,
        )
        events += record.eventCount
        trials.push(record)
        // Spans go to their own file in batches, so that neither file is held whole.
        if (spansChars >= 16 * MIB) flushSpans()
      }
    }
  })
  // spans.jsonl is written after traces.jsonl from the lines kept meanwhile, flushed by flushSpans in batches.
  function flushSpans() {
    spansFile.append(spanLines.splice(0).join(''))
    spansChars = 0
  }
  flushSpans()
  const runEnd = START_NS + 10_000_000_000n
  spansFile.append(
    otlpLine([
      span('eval.run', runSpanId, undefined, START_NS, runEnd, {
        'agentevalops.run.id': RUN_ID,
        'agentevalops.run.status': 'complete',
        'agentevalops.run.trial_count': trials.length,
      }),
      span('eval.score', nextSpanId(), runSpanId, runEnd - 2000n, runEnd - 1000n, {}),
      span('eval.report', nextSpanId(), runSpanId, runEnd - 1000n, runEnd, {}),
    ]),
  )
  const spans = spansFile.close()

  const dist = await import(pathToFileURL(distIndex).href)
  const formatVersion = dist.BUNDLE_FORMAT_VERSION
  const scores = dist.ScoresFile.parse({
    schemaVersion: formatVersion,
    trials: trials.map(({ runId: _runId, ...trial }) => trial),
    summary: dist.summarizeTrials(trials, dist.DEFAULT_SUMMARY_SETTINGS),
  })
  const metadata = {
    schemaVersion: formatVersion,
    runId: RUN_ID,
    status: 'complete',
    labels: {},
    target: RUNNER,
    targets: [RUNNER],
    benchmark: BENCHMARK,
    benchmarks: [BENCHMARK],
    startedAt: TS,
    finishedAt: TS,
    durationSec: 1,
    sdkVersion: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
    git: { sha: null, dirty: null },
    node: process.version,
    vitest: '4.1.12',
    configHash: 'd'.repeat(64),
    seed: null,
    shard: null,
    vitestProject: 'evals',
    testNamePattern: null,
    trialCount: trials.length,
  }
  const json = (value) => `${JSON.stringify(value, null, 2)}\n`
  const files = [
    traces,
    spans,
    writeHashed(dir, 'metadata.json', (write) => write(json(metadata))),
    writeHashed(dir, 'scores.json', (write) => write(json(scores))),
    writeHashed(dir, 'report.md', (write) => write('# Validation bench\n')),
    // Only checksummed by the validator, like a real run's report: about 2 KB of row data per trial.
    writeHashed(dir, 'report.html', (write) => {
      write('<!doctype html><html><body><table>\n')
      for (const t of trials)
        write(`<tr><td>${t.taskId}</td><td>${t.trial}</td><td>${pick().slice(0, 1900)}</td></tr>\n`)
      write('</table></body></html>\n')
    }),
    writeHashed(dir, 'replay_command.txt', (write) => write('npx vitest run --project evals\n')),
  ].sort((a, b) => (a.path < b.path ? -1 : 1))
  writeFileSync(join(dir, 'manifest.json'), json({ formatVersion, runId: RUN_ID, createdAt: TS, files }))
  return { events, trials: trials.length, formatVersion }
}

/** spans.jsonl, appended in batches and hashed as it grows. */
const spansFile = {
  fd: undefined,
  hash: createHash('sha256'),
  size: 0,
  open(dir) {
    this.fd = openSync(join(dir, 'spans.jsonl'), 'w')
  },
  append(chunk) {
    const bytes = Buffer.from(chunk, 'utf8')
    this.hash.update(bytes)
    writeSync(this.fd, bytes)
    this.size += bytes.length
  },
  close() {
    closeSync(this.fd)
    return { path: 'spans.jsonl', sha256: this.hash.digest('hex'), size: this.size }
  },
}

/** Bytes of every file of the bundle. */
function bundleBytes(dir) {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)
}

/** Peak RSS of a running process in MiB, from Linux's high-water mark; undefined elsewhere or once it is gone. */
function peakRssMiB(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : undefined
  } catch {
    return undefined
  }
}

/**
 * CPU seconds (user + system) a running process has used, from /proc/<pid>/stat (in clock ticks, 100 a second on
 * Linux); undefined elsewhere. On a busy machine wall time is mostly waiting for a core: CPU time is what the
 * validator itself costs.
 */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

function measure(args) {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(
      process.execPath,
      [...(process.env.AGENTEVALOPS_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    let peak
    let cpu
    const poll = () => {
      const now = peakRssMiB(child.pid)
      if (now !== undefined) peak = Math.max(peak ?? 0, now)
      cpu = cpuSeconds(child.pid) ?? cpu
    }
    const poller = setInterval(poll, 10)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearInterval(poller)
      const wallSec = Number(process.hrtime.bigint() - started) / 1e9
      resolvePromise({ code, stdout, stderr, wallSec, peakRss: peak, cpuSec: cpu })
    })
  })
}

const work = keptDir ? resolve(keptDir) : mkdtempSync(join(tmpdir(), 'aeo-bench-validate-'))
const cleanup = () => {
  if (!keptDir) rmSync(work, { recursive: true, force: true })
}
process.on('SIGINT', () => {
  cleanup()
  process.exit(130)
})
try {
  const generationStarted = Date.now()
  const reuse = keptDir !== undefined && existsSync(join(work, 'manifest.json'))
  let bundle
  if (reuse) {
    bundle = JSON.parse(readFileSync(`${work}.json`, 'utf8'))
  } else {
    mkdirSync(work, { recursive: true })
    spansFile.open(work)
    bundle = await buildBundle(work)
    if (keptDir) writeFileSync(`${work}.json`, JSON.stringify(bundle))
  }
  const generatedSec = (Date.now() - generationStarted) / 1000
  const bytes = bundleBytes(work)
  const sizes = ['traces.jsonl', 'spans.jsonl', 'scores.json']
    .map((f) => `${f} ${(statSync(join(work, f)).size / MIB).toFixed(0)} MiB`)
    .join(', ')
  console.log(
    `validate bench: format-${bundle.formatVersion} bundle of ${(bytes / MIB).toFixed(1)} MiB (${sizes}; ` +
      `${bundle.events.toLocaleString('en')} events, ${bundle.trials} trials), ` +
      (reuse ? `reused from ${work}` : `generated in ${generatedSec.toFixed(1)} s`),
  )
  const expected = `ok: ${work} (${bundle.trials} trials, ${bundle.events} events)`
  const runs = []
  const floors = []
  for (let round = 0; round < rounds; round++) {
    // Alternated with the validator, so that both see the same load on a shared machine.
    const floor = await measure([floorScript, work])
    if (floor.code !== 0) {
      fail(`the floor measurement exited ${floor.code}:\n${floor.stderr.slice(0, 3000)}`)
      break
    }
    floors.push(floor)
    const run = await measure([cli, 'validate-bundle', work])
    if (run.code !== 0 || run.stdout.trim() !== expected) {
      fail(`validate-bundle exited ${run.code}:\n${run.stdout.slice(0, 3000)}\n${run.stderr.slice(0, 3000)}`)
      break
    }
    const rate = bytes / MIB / run.wallSec
    console.log(
      `  round ${round + 1}: ${run.wallSec.toFixed(2)} s, ${rate.toFixed(1)} MiB/s, ` +
        (run.cpuSec === undefined ? '' : `CPU ${run.cpuSec.toFixed(2)} s, `) +
        'peak RSS ' +
        (run.peakRss === undefined ? 'n/a' : `${run.peakRss.toFixed(1)} MiB`),
    )
    runs.push(run)
  }
  if (runs.length === rounds) {
    const wall = median(runs.map((r) => r.wallSec))
    const rate = bytes / MIB / wall
    const peaks = runs.map((r) => r.peakRss).filter((p) => p !== undefined)
    const peak = peaks.length > 0 ? median(peaks) : undefined
    const verdict = (ok) => (ok ? 'met' : 'MISSED')
    const cpus = runs.map((r) => r.cpuSec).filter((c) => c !== undefined)
    const floorWall = median(floors.map((r) => r.wallSec))
    const floorCpus = floors.map((r) => r.cpuSec).filter((c) => c !== undefined)
    console.log(`  wall time   median ${wall.toFixed(2)} s of ${rounds}`)
    if (cpus.length > 0) {
      const cpu = median(cpus)
      console.log(
        `  CPU time    median ${cpu.toFixed(2)} s: ${(bytes / MIB / cpu).toFixed(1)} MiB per CPU-second ` +
          '(what a core free for it would give)',
      )
    }
    console.log(
      `  floor       median ${floorWall.toFixed(2)} s, ${(bytes / MIB / floorWall).toFixed(1)} MiB/s` +
        (floorCpus.length > 0 ? `, CPU ${median(floorCpus).toFixed(2)} s` : '') +
        ` (read + SHA-256 + UTF-8 decode + JSON.parse of the JSONL files, bench/validate-floor.mjs); ` +
        `validator / floor: wall ${(wall / floorWall).toFixed(2)}×` +
        (floorCpus.length > 0 && cpus.length > 0
          ? `, CPU ${(median(cpus) / median(floorCpus)).toFixed(2)}×`
          : ''),
    )
    console.log(
      `  throughput  median ${rate.toFixed(1)} MiB/s of the whole bundle ` +
        `(target >= ${THROUGHPUT_TARGET_MIB_S} MiB/s: ${verdict(rate >= THROUGHPUT_TARGET_MIB_S)})`,
    )
    console.log(
      `  peak RSS    median ` +
        (peak === undefined
          ? 'n/a (no /proc)'
          : `${peak.toFixed(1)} MiB (target < ${RSS_TARGET_MIB} MiB: ${verdict(peak < RSS_TARGET_MIB)})`),
    )
    if (peak !== undefined && peak >= RSS_TARGET_MIB) {
      fail(`peak RSS ${peak.toFixed(1)} MiB is over the ${RSS_TARGET_MIB} MiB target`)
    }
  }
} finally {
  cleanup()
}
