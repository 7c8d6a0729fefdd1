#!/usr/bin/env node
// HTML report benchmark: report.html of a 10,000-trial run (2 benchmarks × 1,000 tasks × 5 trials, 6 categories,
// 7 trace events per trial) opened from disk in headless Chromium, offline. Times how long the tasks table takes to
// show its rows, median of AGENTEVALOPS_BENCH_ROUNDS (default 5), for three pages opened in turn in each round:
// the report as the package renders it (the app, ui/report), the same data blocks under the page as it was before
// the app (bench/baselines/legacy-report, frozen, with its own CSP hashes), and a plain static page with a 200-row
// table. Two clocks: in the page, from navigation start to the `agentevalops:ready` performance mark (set once the
// rows are in the DOM); and from Node, from page.goto() to the first row found. The acceptance targets: the
// Node-side time under 2 s, and the app no slower than the legacy page (ratio app/legacy at most 1.10).
//
// Renders from the TypeScript sources: they are bundled with esbuild into bench/.work/ first (renderHtmlReport is
// not part of the built package's exports). Needs /usr/bin/chromium (`apt-get install chromium`).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { prng } from './prng.mjs'
import { median } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 5)
const TARGET_MS = 2000
/** How much slower than the legacy page the app may measure before the bench fails: the machine's noise. */
const MAX_RATIO = 1.1
const BENCHMARKS = ['alpha', 'beta']
const TASKS_PER_BENCHMARK = 1000
const TRIALS_PER_TASK = 5
const CATEGORIES = ['arithmetic', 'retrieval', 'coding', 'planning', 'tools', 'writing']
const RUN_ID = '0190f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b'
const T0 = Date.parse('2025-01-02T03:04:05.000Z')
const READY_ROW = '[data-testid="table-tasks"][data-ready="true"] [data-testid="row"]'

function fail(message) {
  console.error(`html-report bench: ${message}`)
  process.exit(1)
}

const work = join(root, 'bench', '.work', 'html-report')
mkdirSync(work, { recursive: true })
const modulePath = join(work, 'module.mjs')
await build({
  stdin: {
    contents: [
      "export { renderHtmlReport } from './src/reports/html/index.ts'",
      "export { contentSecurityPolicy, escapeHtml } from './src/reports/html/embed.ts'",
      "export { uiAsset } from './src/reports/ui-bundle/index.ts'",
      "export { summarizeTrials, DEFAULT_SUMMARY_SETTINGS } from './src/scorers/index.ts'",
      "export { CHROMIUM, CHROMIUM_ARGS } from './test/support/chromium.ts'",
      "export { makeMetadata } from './test/bundles/fixtures.ts'",
    ].join('\n'),
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  outfile: modulePath,
  logLevel: 'warning',
})
const {
  renderHtmlReport,
  contentSecurityPolicy,
  escapeHtml,
  uiAsset,
  summarizeTrials,
  DEFAULT_SUMMARY_SETTINGS,
  CHROMIUM,
  CHROMIUM_ARGS,
  makeMetadata,
} = await import(pathToFileURL(modulePath).href)
// The app, built from ui/ now (it resolves esbuild from the module's folder, removed next).
const app = uiAsset('report')
// Loaded: the bundle is not needed any more (bench/.work is scratch space).
rmSync(work, { recursive: true, force: true })
if (!existsSync(CHROMIUM)) fail(`${CHROMIUM} is missing: install it with \`apt-get install chromium\`.`)

const random = prng(11)
const benchmarkInfo = (id) => ({ id, version: '1.0.0', datasetChecksum: 'a'.repeat(64) })

function trialRecord(benchmark, taskId, trial, category, difficulty) {
  const passed = random() > difficulty
  const tokens = 200 + Math.floor(random() * 4000)
  const costUsd = tokens * 0.000004
  return {
    runId: RUN_ID,
    benchmark: benchmarkInfo(benchmark),
    taskId,
    taskChecksum: 'b'.repeat(64),
    trial,
    outcome: passed ? 'passed' : 'failed',
    passed,
    result: {
      success: passed,
      finalAnswer: passed ? 'the answer is 42' : 'I could not find it',
      artifacts: [],
      error: null,
      totalCostUsd: costUsd,
      totalTokens: tokens,
      turns: 2,
      wallSeconds: 1 + random() * 5,
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
        explanation: passed ? 'exact match' : 'expected "42"',
        citations: [4],
        findings: passed ? [] : [{ type: 'wrong_answer', message: 'the answer differs', citations: [3, 4] }],
        error: null,
      },
    ],
    verdicts: [],
    usage: { tokens, costUsd, wallSeconds: 1 + random() * 5, turns: 2 },
    runner: { name: 'mock-scripted', kind: 'mock', config: {} },
    tracePath: `traces/${benchmark}/${taskId}.t${trial}.jsonl`,
    eventCount: 7,
    warnings: [],
    labels: { category },
    keys: null,
    reusedFrom: null,
  }
}

function trialEvents(record, offsetMs) {
  const base = (step) => ({
    runId: RUN_ID,
    benchmark: record.benchmark.id,
    taskId: record.taskId,
    trial: record.trial,
    step,
    ts: new Date(T0 + offsetMs + step * 250).toISOString(),
    costDeltaUsd: 0,
    tokensDelta: 0,
    spanId: (step + 1).toString(16).padStart(16, '0'),
  })
  return [
    { ...base(0), kind: 'agent.plan', payload: { text: 'look the number up, then answer' } },
    {
      ...base(1),
      kind: 'agent.model_call',
      payload: { model: 'mock', inputTokens: record.usage.tokens - 40, outputTokens: 40 },
      tokensDelta: record.usage.tokens,
      costDeltaUsd: record.usage.costUsd,
    },
    {
      ...base(2),
      kind: 'agent.tool_call',
      payload: { tool: 'search', args: { query: `${record.taskId} value` } },
    },
    {
      ...base(3),
      kind: 'agent.tool_result',
      payload: { tool: 'search', result: { hits: [{ id: 1, text: '42' }] } },
    },
    { ...base(4), kind: 'agent.final_answer', payload: { answer: record.result.finalAnswer } },
    {
      ...base(5),
      kind: 'agent.terminal',
      payload: { terminatedBy: 'completed', success: true, error: null },
    },
    {
      ...base(6),
      kind: 'evaluator.score',
      payload: { evaluatorId: 'exact-match', score: record.scores[0].score, passed: record.passed },
    },
  ]
}

const trials = []
const events = []
for (const benchmark of BENCHMARKS) {
  for (let t = 0; t < TASKS_PER_BENCHMARK; t++) {
    const taskId = `task-${String(t).padStart(4, '0')}`
    const category = CATEGORIES[t % CATEGORIES.length]
    const difficulty = random()
    for (let trial = 0; trial < TRIALS_PER_TASK; trial++) {
      const record = trialRecord(benchmark, taskId, trial, category, difficulty)
      trials.push(record)
      events.push(...trialEvents(record, trials.length * 10_000))
    }
  }
}
// The fixtures' metadata, made this run's: its benchmarks, runner and an hour's duration.
const metadata = {
  ...makeMetadata(trials, { runId: RUN_ID, benchmarks: BENCHMARKS.map(benchmarkInfo) }),
  labels: {},
  target: trials[0].runner,
  targets: [trials[0].runner],
  startedAt: new Date(T0).toISOString(),
  finishedAt: new Date(T0 + 3_600_000).toISOString(),
  durationSec: 3600,
}

const summary = summarizeTrials(trials, DEFAULT_SUMMARY_SETTINGS)
const renderStarted = performance.now()
const html = renderHtmlReport({ metadata, trials, summary, events })
const renderMs = performance.now() - renderStarted

const out = mkdtempSync(join(tmpdir(), 'aeo-html-bench-'))
const reportFile = join(out, 'report.html')
writeFileSync(reportFile, html)
const legacyFile = join(out, 'legacy.html')
const legacy = {
  script: readFileSync(join(root, 'bench', 'baselines', 'legacy-report', 'page.js'), 'utf8'),
  style: readFileSync(join(root, 'bench', 'baselines', 'legacy-report', 'page.css'), 'utf8'),
}
writeFileSync(legacyFile, legacyPage(html))
const baselineFile = join(out, 'baseline.html')
writeFileSync(baselineFile, baselinePage())

/** The same report under the page before the app: its script, its style, and a policy naming their hashes. */
function legacyPage(report) {
  const swap = (text, from, to) => {
    const at = text.indexOf(from)
    if (at < 0 || text.indexOf(from, at + 1) >= 0) fail('the report does not hold the app exactly once')
    return text.slice(0, at) + to + text.slice(at + from.length)
  }
  const csp = (page) => `content="${escapeHtml(contentSecurityPolicy(page.script, page.style))}"`
  let page = swap(report, csp(app), csp(legacy))
  page = swap(page, `<style>${app.style}</style>`, `<style>${legacy.style}</style>`)
  return swap(page, `<script>${app.script}</script>`, `<script>${legacy.script}</script>`)
}

/** A plain static page with a 200-row table: what "opening an HTML file" costs here without any report logic. */
function baselinePage() {
  const rows = []
  for (let i = 0; i < 200; i++) {
    const cells = [
      BENCHMARKS[i % 2],
      `task-${i}`,
      String(TRIALS_PER_TASK),
      '60.0%',
      '0.600',
      '$0.0100',
      '1,234',
      'no',
    ]
    rows.push(`<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`)
  }
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>baseline</title></head><body>',
    '<table data-testid="table-tasks" data-ready="true"><thead><tr>',
    ['Benchmark', 'Task', 'Trials', 'Pass rate', 'Mean score', 'Cost', 'Tokens', 'Flaky']
      .map((h) => `<th>${h}</th>`)
      .join(''),
    '</tr></thead><tbody>',
    rows.join('\n').replaceAll('<tr>', '<tr data-testid="row">'),
    '</tbody></table>',
    "<script>performance.mark('agentevalops:ready')</script>",
    '</body></html>',
  ].join('\n')
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })

/** One cold open in a fresh offline context: [in-page ms to the ready mark, Node-side ms to the first row]. */
async function open(file) {
  const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } })
  await context.route('**/*', (route) =>
    route.request().url().startsWith('file://') ? route.continue() : route.abort(),
  )
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
  try {
    const started = performance.now()
    await page.goto(pathToFileURL(file).href, { waitUntil: 'commit', timeout: 60_000 })
    await page.waitForSelector(READY_ROW, { timeout: 60_000 })
    const wallMs = performance.now() - started
    const markMs = await page.evaluate(
      () => performance.getEntriesByName('agentevalops:ready')[0]?.startTime ?? NaN,
    )
    if (errors.length > 0) throw new Error(`${file}: ${errors.join('; ')}`)
    return { markMs, wallMs }
  } finally {
    await context.close()
  }
}

const report = []
const older = []
const baseline = []
try {
  // One warm-up of each: Chromium's own start-up costs and the page cache are not what is measured.
  await open(baselineFile)
  await open(legacyFile)
  await open(reportFile)
  for (let i = 0; i < rounds; i++) {
    // Which of the two reports goes first alternates, so neither always follows the other.
    baseline.push(await open(baselineFile))
    if (i % 2 === 0) {
      report.push(await open(reportFile))
      older.push(await open(legacyFile))
    } else {
      older.push(await open(legacyFile))
      report.push(await open(reportFile))
    }
    process.stdout.write(
      `round ${i + 1}/${rounds}: baseline ${baseline[i].wallMs.toFixed(0)} ms · legacy ${older[i].wallMs.toFixed(0)} ms · ` +
        `app ${report[i].wallMs.toFixed(0)} ms (in page ${baseline[i].markMs.toFixed(0)} / ${older[i].markMs.toFixed(0)} / ` +
        `${report[i].markMs.toFixed(0)} ms)\n`,
    )
  }
} finally {
  await browser.close()
  rmSync(out, { recursive: true, force: true })
}

const wallReport = median(report.map((r) => r.wallMs))
const wallLegacy = median(older.map((r) => r.wallMs))
const wallBase = median(baseline.map((r) => r.wallMs))
const markReport = median(report.map((r) => r.markMs))
const markLegacy = median(older.map((r) => r.markMs))
const markBase = median(baseline.map((r) => r.markMs))
const mb = (bytes) => (bytes / 1e6).toFixed(1)
const kb = (text) =>
  `${(Buffer.byteLength(text) / 1024).toFixed(1)} KB (${(gzipSync(text).length / 1024).toFixed(1)} KB gzipped)`
const ratio = wallReport / wallLegacy
console.log(
  `\nhtml report benchmark: ${trials.length.toLocaleString('en-US')} trials, ${summary.tasks.length.toLocaleString('en-US')} tasks, ` +
    `${events.length.toLocaleString('en-US')} events, ${rounds} rounds, headless Chromium, offline`,
)
console.log(`report.html: ${mb(Buffer.byteLength(html))} MB, rendered in ${renderMs.toFixed(0)} ms (Node)`)
console.log(`page script: app ${kb(app.script)}, legacy ${kb(legacy.script)}; style: app ${kb(app.style)}`)
console.log(
  `until the tasks table shows rows, median: baseline (static 200-row table) ${wallBase.toFixed(0)} ms, ` +
    `legacy page ${wallLegacy.toFixed(0)} ms, app ${wallReport.toFixed(0)} ms; ratio app/legacy ${ratio.toFixed(2)}, ` +
    `app/baseline ${(wallReport / wallBase).toFixed(2)}`,
)
console.log(
  `  in page (navigation start → ready mark): baseline ${markBase.toFixed(0)} ms, legacy ${markLegacy.toFixed(0)} ms, ` +
    `app ${markReport.toFixed(0)} ms; ratio app/legacy ${(markReport / markLegacy).toFixed(2)}`,
)
console.log(`under 2 s: ${wallReport < TARGET_MS ? 'yes' : 'no'}`)
console.log(
  `no slower than the legacy page (ratio ≤ ${MAX_RATIO.toFixed(2)}): ${ratio <= MAX_RATIO ? 'yes' : 'no'}`,
)
if (!(wallReport < TARGET_MS) || !(ratio <= MAX_RATIO)) process.exitCode = 1
