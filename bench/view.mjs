// `agentevalops view` opening a 1,000-bundle runs folder: the time from starting the command to its first /api/runs
// answer listing all 1,000 runs, cold (no index cached) and warm (the index of the previous start), medians of
// AGENTEVALOPS_BENCH_REPEATS (default 3), beside a baseline in the same run: reading the 1,000 metadata.json files
// directly. Uses dist/ (run `npm run build` first). The bundles are written by the package's own writer.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { median } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BUNDLES = Number(process.env.AGENTEVALOPS_BENCH_VIEW_BUNDLES || 1000)
const REPEATS = Number(process.env.AGENTEVALOPS_BENCH_REPEATS || 3)
const dist = await import(pathToFileURL(join(root, 'dist', 'src', 'index.js')).href)

const BENCHMARK = { id: 'bench', version: '1.0.0', datasetChecksum: 'a'.repeat(64) }
const RUNNER = { name: 'mock-scripted', kind: 'mock', config: {} }
const TS = '2025-01-02T03:04:05.000Z'

function trial(runId, taskId, n, passed) {
  const usage = { tokens: 120, costUsd: 0.01, wallSeconds: 1, turns: 1 }
  return {
    runId,
    benchmark: BENCHMARK,
    taskId,
    taskChecksum: 'b'.repeat(64),
    trial: n,
    outcome: passed ? 'passed' : 'failed',
    passed,
    result: {
      success: passed,
      finalAnswer: passed ? '4' : '5',
      artifacts: [],
      error: null,
      totalCostUsd: usage.costUsd,
      totalTokens: usage.tokens,
      turns: 1,
      wallSeconds: 1,
      terminatedBy: 'completed',
    },
    scores: [
      {
        evaluatorId: 'exact-match',
        kind: 'deterministic',
        score: passed ? 1 : 0,
        passed,
        costUsd: 0,
        latencyMs: 1,
        explanation: 'exact match',
        citations: [1],
        findings: [],
        error: null,
      },
    ],
    verdicts: [],
    usage,
    runner: RUNNER,
    tracePath: `traces/${BENCHMARK.id}/${taskId}.t${n}.jsonl`,
    eventCount: 3,
    warnings: [],
    labels: {},
  }
}

function events(t) {
  const base = (step) => ({
    runId: t.runId,
    benchmark: BENCHMARK.id,
    taskId: t.taskId,
    trial: t.trial,
    step,
    ts: TS,
    costDeltaUsd: 0,
    tokensDelta: 0,
    spanId: (step + 1).toString(16).padStart(16, '0'),
  })
  return [
    { ...base(0), kind: 'agent.plan', payload: { text: 'add' } },
    { ...base(1), kind: 'agent.final_answer', payload: { answer: t.result.finalAnswer } },
    {
      ...base(2),
      kind: 'agent.terminal',
      payload: { terminatedBy: 'completed', success: t.passed, error: null },
    },
  ]
}

async function writeFolder(runsDir) {
  for (let i = 0; i < BUNDLES; i++) {
    const runId = `0190f5a0-0000-7000-8000-${String(i).padStart(12, '0')}`
    const trials = []
    for (const taskId of ['task-0', 'task-1', 'task-2'])
      for (let n = 0; n < 2; n++) trials.push(trial(runId, taskId, n, (i + n + taskId.length) % 3 !== 0))
    await dist.writeBundle({
      runsDir,
      metadata: {
        schemaVersion: dist.BUNDLE_FORMAT_VERSION,
        runId,
        status: 'complete',
        labels: { bench: 'view' },
        target: RUNNER,
        targets: [RUNNER],
        benchmark: BENCHMARK,
        benchmarks: [BENCHMARK],
        startedAt: new Date(Date.parse(TS) + i * 60_000).toISOString(),
        finishedAt: new Date(Date.parse(TS) + i * 60_000 + 1000).toISOString(),
        durationSec: 1,
        sdkVersion: '0.1.0',
        git: { sha: null, dirty: null },
        node: process.version,
        vitest: '4.1.12',
        configHash: 'd'.repeat(64),
        seed: null,
        shard: null,
        vitestProject: 'evals',
        testNamePattern: null,
        trialCount: trials.length,
      },
      trials,
      summary: dist.summarizeTrials(trials, dist.DEFAULT_SUMMARY_SETTINGS),
      reports: { 'report.md': '# bench\n' },
      replayCommand: 'npx vitest run --project evals',
      traceEvents: trials.flatMap(events),
      createdAt: TS,
    })
  }
}

function runsOnce(port) {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: '/api/runs', timeout: 120_000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve(JSON.parse(body).runs.length))
    })
    req.on('error', reject)
  })
}

/** Starts `view`, waits for its URL, asks /api/runs once; the wall time from spawn to that answer, in ms. */
function timeView(runsDir) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(
      process.execPath,
      [join(root, 'bin', 'agentevalops.js'), 'view', runsDir, '--port', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    let asked = false
    const killer = setTimeout(() => child.kill('SIGKILL'), 300_000)
    child.stdout.on('data', (d) => {
      out += d
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)
      if (!match || asked) return
      asked = true
      runsOnce(Number(match[1])).then((count) => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6
        child.kill('SIGTERM')
        clearTimeout(killer)
        if (count !== BUNDLES) reject(new Error(`view listed ${count} runs, not ${BUNDLES}`))
        else resolve(ms)
      }, reject)
    })
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code) => {
      if (!asked) reject(new Error(`view exited ${code} before printing its URL:\n${out}`))
    })
  })
}

async function readAllMetadata(runsDir) {
  const started = process.hrtime.bigint()
  const names = readdirSync(runsDir).filter((n) => !n.startsWith('.'))
  await Promise.all(
    names.map(async (n) => JSON.parse(await readFile(join(runsDir, n, 'metadata.json'), 'utf8'))),
  )
  return Number(process.hrtime.bigint() - started) / 1e6
}

const work = mkdtempSync(join(tmpdir(), 'aeo-bench-view-'))
try {
  const runsDir = join(work, 'bundles')
  const t0 = Date.now()
  await writeFolder(runsDir)
  console.log(`view: wrote ${BUNDLES} bundles in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  const cold = []
  const warm = []
  const baseline = []
  for (let i = 0; i < REPEATS; i++) {
    rmSync(join(runsDir, '.agentevalops'), { recursive: true, force: true })
    baseline.push(await readAllMetadata(runsDir))
    cold.push(await timeView(runsDir))
    warm.push(await timeView(runsDir))
  }
  const cache = readFileSync(join(runsDir, '.agentevalops', 'view-index.json')).length
  const fmt = (ms) => `${ms.toFixed(0)} ms`
  console.log(`view: ${BUNDLES} bundles, medians of ${REPEATS}`)
  console.log(`  reading every metadata.json directly (baseline): ${fmt(median(baseline))}`)
  console.log(`  view start → runs list, cold (no index):         ${fmt(median(cold))}`)
  console.log(`  view start → runs list, warm (index cached):     ${fmt(median(warm))}`)
  console.log(
    `  index cache: ${(cache / 1024).toFixed(0)} KiB; warm/cold ${(median(warm) / median(cold)).toFixed(2)}`,
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
