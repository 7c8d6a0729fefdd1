#!/usr/bin/env node
// Validation benchmark: `agentevalops validate-bundle` on a bundle whose traces.jsonl is ~1 GiB
// (AGENTEVALOPS_BENCH_VALIDATE_MB, default 1024), run as a child process. Prints the wall time, the throughput and
// the child's peak RSS, which must stay under 200 MiB: the validator streams the trace, so its memory must not
// grow with the trace's size. The bundle is written directly (with plain Node, checksummed as it is written) into
// a temporary folder that is removed afterwards.
//
// Runs bin/agentevalops.js, i.e. the built package (dist/): `npm run build` first. AGENTEVALOPS_BENCH_CLI=<file>
// runs another entry instead (e.g. an esbuild bundle of src/cli/index.ts). With dist/ present its summarizeTrials
// makes a format-2 scores.json; without it the bundle is written in format 1, whose summary is free-form (every
// reader still reads format 1, and the traces, which are what this measures, are the same).
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { prng } from './prng.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const targetMiB = Number(process.env.AGENTEVALOPS_BENCH_VALIDATE_MB ?? 1024)
const cli = resolve(process.env.AGENTEVALOPS_BENCH_CLI ?? join(root, 'bin', 'agentevalops.js'))
const distIndex = join(root, 'dist', 'src', 'index.js')
const RSS_TARGET_MIB = 200
const TASKS = 100
const TRIALS_PER_TASK = 2
const RUN_ID = '0190f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b'
const TS = '2025-01-02T03:04:05.000Z'
const MIB = 1024 * 1024

function fail(message) {
  console.error(`validate bench: ${message}`)
  process.exitCode = 1
}

if (!(targetMiB > 0)) {
  fail(
    `AGENTEVALOPS_BENCH_VALIDATE_MB must be a positive number of MiB (got ${process.env.AGENTEVALOPS_BENCH_VALIDATE_MB})`,
  )
  process.exit()
}
if (!existsSync(cli)) {
  fail(`${cli} does not exist.`)
  process.exit()
}
if (!process.env.AGENTEVALOPS_BENCH_CLI && !existsSync(distIndex)) {
  fail('dist/ does not exist: run `npm run build` first (or set AGENTEVALOPS_BENCH_CLI).')
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
]
function text(chars) {
  let out = ''
  while (out.length < chars) out += `${WORDS[Math.floor(random() * WORDS.length)]} `
  return out
}

const BENCHMARK = { id: 'bench', version: '1.0.0', datasetChecksum: 'a'.repeat(64) }
const RUNNER = { name: 'mock-scripted', kind: 'mock', config: {} }

function trialRecord(taskId, trial, eventCount) {
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
      totalCostUsd: 0.01,
      totalTokens: 100,
      turns: 2,
      wallSeconds: 1,
      terminatedBy: 'completed',
    },
    scores: [],
    verdicts: [],
    usage: { tokens: 100, costUsd: 0.01, wallSeconds: 1, turns: 2 },
    runner: RUNNER,
    tracePath: `traces/${taskId}.t${trial}.jsonl`,
    eventCount,
    warnings: [],
    labels: { category: 'bench' },
  }
}

function payload(kind) {
  switch (kind) {
    case 'agent.model_call':
      return { model: 'mock', inputTokens: 500, outputTokens: 200, text: text(600) }
    case 'agent.tool_call':
      return { tool: 'write_file', args: { path: 'src/index.ts', content: text(700) } }
    case 'agent.tool_result':
      return { tool: 'write_file', result: { ok: true, stdout: text(700) } }
    default:
      return { text: text(800) }
  }
}
const KINDS = ['agent.model_call', 'agent.tool_call', 'agent.tool_result', 'agent.observation']

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

async function buildBundle(dir) {
  const trials = []
  const perTrialBytes = (targetMiB * MIB) / (TASKS * TRIALS_PER_TASK)
  let events = 0
  const traces = writeHashed(dir, 'traces.jsonl', (write) => {
    let span = 0
    for (let task = 0; task < TASKS; task++) {
      for (let trial = 0; trial < TRIALS_PER_TASK; trial++) {
        const taskId = `task-${task}`
        let written = 0
        let step = 0
        const event = (kind, body) => {
          const line = `${JSON.stringify({
            runId: RUN_ID,
            benchmark: BENCHMARK.id,
            taskId,
            trial,
            step: step++,
            ts: TS,
            costDeltaUsd: 0,
            tokensDelta: 0,
            spanId: (++span).toString(16).padStart(16, '0'),
            kind,
            payload: body,
          })}\n`
          written += line.length
          write(line)
        }
        event('agent.plan', { text: text(200) })
        while (written < perTrialBytes) event(KINDS[step % KINDS.length], payload(KINDS[step % KINDS.length]))
        event('agent.final_answer', { answer: '4' })
        event('agent.terminal', { terminatedBy: 'completed', success: true, error: null })
        events += step
        trials.push(trialRecord(taskId, trial, step))
      }
    }
  })

  let formatVersion = 1
  let scores = { schemaVersion: 1, runId: RUN_ID, trials, summary: { n: trials.length } }
  if (existsSync(distIndex)) {
    const dist = await import(pathToFileURL(distIndex).href)
    formatVersion = dist.BUNDLE_FORMAT_VERSION
    scores = dist.ScoresFile.parse({
      schemaVersion: formatVersion,
      trials: trials.map(({ runId: _runId, ...trial }) => trial),
      summary: dist.summarizeTrials(trials, dist.DEFAULT_SUMMARY_SETTINGS),
    })
  }
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
    writeHashed(dir, 'metadata.json', (write) => write(json(metadata))),
    writeHashed(dir, 'scores.json', (write) => write(json(scores))),
    writeHashed(dir, 'report.md', (write) => write('# Validation bench\n')),
    writeHashed(dir, 'replay_command.txt', (write) => write('npx vitest run --project evals\n')),
  ].sort((a, b) => (a.path < b.path ? -1 : 1))
  writeFileSync(join(dir, 'manifest.json'), json({ formatVersion, runId: RUN_ID, createdAt: TS, files }))
  return { tracesBytes: traces.size, events, trials: trials.length, formatVersion }
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

function validate(dir) {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [cli, 'validate-bundle', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    let peak
    const poll = () => {
      const now = peakRssMiB(child.pid)
      if (now !== undefined) peak = Math.max(peak ?? 0, now)
    }
    const poller = setInterval(poll, 10)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearInterval(poller)
      const wallSec = Number(process.hrtime.bigint() - started) / 1e9
      resolvePromise({ code, stdout, stderr, wallSec, peakRss: peak })
    })
  })
}

const work = mkdtempSync(join(tmpdir(), 'aeo-bench-validate-'))
const cleanup = () => rmSync(work, { recursive: true, force: true })
process.on('SIGINT', () => {
  cleanup()
  process.exit(130)
})
try {
  const generationStarted = Date.now()
  const bundle = await buildBundle(work)
  const generatedSec = (Date.now() - generationStarted) / 1000
  const tracesMiB = bundle.tracesBytes / MIB
  console.log(
    `validate bench: format-${bundle.formatVersion} bundle, traces.jsonl ${tracesMiB.toFixed(1)} MiB ` +
      `(${bundle.events.toLocaleString('en')} events, ${bundle.trials} trials), written in ${generatedSec.toFixed(1)} s`,
  )
  const run = await validate(work)
  const expected = `ok: ${work} (${bundle.trials} trials, ${bundle.events} events)`
  if (run.code !== 0 || run.stdout.trim() !== expected) {
    fail(`validate-bundle exited ${run.code}:\n${run.stdout.slice(0, 3000)}\n${run.stderr.slice(0, 3000)}`)
  } else {
    const rss = run.peakRss === undefined ? 'n/a (no /proc)' : `${run.peakRss.toFixed(1)} MiB`
    console.log(`  wall time        ${run.wallSec.toFixed(2)} s`)
    console.log(`  throughput       ${(tracesMiB / run.wallSec).toFixed(1)} MiB/s of traces.jsonl`)
    console.log(`  peak RSS         ${rss} (target < ${RSS_TARGET_MIB} MiB)`)
    if (run.peakRss !== undefined && run.peakRss >= RSS_TARGET_MIB) {
      fail(`peak RSS ${run.peakRss.toFixed(1)} MiB is over the ${RSS_TARGET_MIB} MiB target`)
    }
  }
} finally {
  cleanup()
}
