/**
 * report.html in a real browser: Debian's Chromium opens it from disk with the network off, and the page must
 * show the figures of the scores.json written beside it, open a task's timeline, link a finding to its step, and
 * run nothing that came from the agent.
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeBundle } from '../../../src/bundles/index.ts'
import {
  sealedSummary,
  type RunMetadata,
  type RunSummary,
  type ScoresFile,
  type TraceEvent,
  type TrialRecord,
} from '../../../src/core/index.ts'
import {
  HtmlReportAggregates,
  htmlRunPart,
  htmlTrialRow,
  renderHtmlReport,
  taskTokens,
  writeHtmlReportFromRows,
} from '../../../src/reports/html/index.ts'
import { renderMarkdownReport } from '../../../src/reports/index.ts'
import { uiAsset } from '../../../src/reports/ui-bundle/index.ts'
import { compareToBaseline } from '../../../src/scorers/index.ts'
import {
  eventBase,
  FIXTURE_BENCHMARK,
  makeEvents,
  makeMetadata,
  makeSummary,
  makeTrials,
  RUN_ID,
  tempDir,
  toJsonl,
} from '../../bundles/fixtures.ts'
import { CHROMIUM, CHROMIUM_ARGS } from '../../support/chromium.ts'
import { scoredTrial } from '../../support/trials.ts'

const ARTIFACTS = join(process.cwd(), 'test-results', 'html-report')

const PAYLOAD =
  '<script>alert(1)</script> <img src=x onerror=alert(2)> </script><script>alert(3)</script> & \u2028 done'
const BENCHMARKS = [FIXTURE_BENCHMARK, { ...FIXTURE_BENCHMARK, id: 'toy-b' }]
/** The hostile trial: toy/task-2 trial 1, the fixture's failing one. */
const HOSTILE = { benchmark: 'toy', taskId: 'task-2', trial: 1 }
const OBSERVATIONS = 40
const LAST_STEP = OBSERVATIONS + 6
const T0 = Date.parse('2025-01-02T03:04:05.000Z')

function isHostile(t: TrialRecord): boolean {
  return t.benchmark.id === HOSTILE.benchmark && t.taskId === HOSTILE.taskId && t.trial === HOSTILE.trial
}

/**
 * A long trace, so that the finding's citation of the last step has to scroll: plan, model call, a tool call and
 * its result (both carrying the payload), observations, the answer, the end, the evaluator's score. Each step
 * 100 ms after the one before, the first 100 ms after the trial started.
 */
function hostileEvents(trial: TrialRecord): TraceEvent[] {
  const base = (step: number) => eventBase(trial, step, new Date(T0 + (step + 1) * 100).toISOString())
  const observations = Array.from({ length: OBSERVATIONS }, (_, i): TraceEvent => ({
    ...base(4 + i),
    kind: 'agent.observation',
    payload: { text: `observation ${i}` },
  }))
  return [
    { ...base(0), kind: 'agent.plan', payload: { text: 'add the numbers' } },
    { ...base(1), kind: 'agent.model_call', payload: { model: 'mock', inputTokens: 50, outputTokens: 10 } },
    { ...base(2), kind: 'agent.tool_call', payload: { tool: 'calc', args: { expr: PAYLOAD } } },
    { ...base(3), kind: 'agent.tool_result', payload: { tool: 'calc', result: PAYLOAD } },
    ...observations,
    { ...base(OBSERVATIONS + 4), kind: 'agent.final_answer', payload: { answer: PAYLOAD } },
    {
      ...base(OBSERVATIONS + 5),
      kind: 'agent.terminal',
      payload: { terminatedBy: 'completed', success: true, error: null },
    },
    {
      ...base(LAST_STEP),
      kind: 'evaluator.score',
      payload: { evaluatorId: 'exact-match', score: 0, passed: false },
    },
  ]
}

function makeHostile(trial: TrialRecord): TrialRecord {
  const score = trial.scores[0]!
  return {
    ...trial,
    result: { ...trial.result!, finalAnswer: PAYLOAD },
    scores: [
      {
        ...score,
        explanation: `expected "4", got ${PAYLOAD}`,
        citations: [OBSERVATIONS + 4],
        findings: [{ type: 'wrong_answer', message: `answered ${PAYLOAD}`, citations: [3, LAST_STEP] }],
      },
    ],
    eventCount: LAST_STEP + 1,
    timing: {
      startedAt: new Date(T0).toISOString(),
      phases: [
        { name: 'prepare', startMs: 0, durationMs: 50 },
        { name: 'agent', startMs: 50, durationMs: 4600 },
        { name: 'evaluators', startMs: 4650, durationMs: 30 },
      ],
    },
  }
}

interface Bundle {
  dir: string
  scores: ScoresFile
  /** What the bundle was written from, and each trial's events. */
  run: {
    metadata: RunMetadata
    trials: TrialRecord[]
    summary: RunSummary
    events: Map<TrialRecord, TraceEvent[]>
  }
}

/** A two-benchmark run with one hostile trial and a baseline comparison, written by the real bundle writer. */
async function writeFixtureBundle(work: string): Promise<Bundle> {
  const trials = makeTrials({ benchmarks: BENCHMARKS }).map((t) => (isHostile(t) ? makeHostile(t) : t))
  const traceFiles: string[] = []
  const events: TraceEvent[] = []
  const byTrial = new Map<TrialRecord, TraceEvent[]>()
  for (const trial of trials) {
    const trialEvents = isHostile(trial) ? hostileEvents(trial) : makeEvents(trial)
    byTrial.set(trial, trialEvents)
    const path = join(work, 'src', trial.tracePath)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, toJsonl(trialEvents))
    traceFiles.push(path)
    events.push(...trialEvents)
  }
  const baselineTrials = makeTrials({ benchmarks: BENCHMARKS, runId: 'run-baseline' }).map((t) => ({
    ...t,
    outcome: 'passed' as const,
    passed: true,
  }))
  const summary = {
    ...makeSummary(trials),
    comparison: compareToBaseline(
      { runId: 'run-baseline', benchmarks: BENCHMARKS, trials: baselineTrials },
      { runId: RUN_ID, benchmarks: BENCHMARKS, trials },
    ),
  }
  const metadata = makeMetadata(trials, { benchmarks: BENCHMARKS })
  const dir = await writeBundle({
    runsDir: join(work, 'runs'),
    metadata,
    trials,
    summary,
    traceFiles,
    reports: {
      'report.md': renderMarkdownReport({ metadata, trials, summary }),
      'report.html': renderHtmlReport({ metadata, trials, summary, events }),
    },
    replayCommand: 'npx vitest run --project evals',
  })
  const scores = JSON.parse(await readFile(join(dir, 'scores.json'), 'utf8')) as ScoresFile
  return { dir, scores, run: { metadata, trials, summary, events: byTrial } }
}

/** What a page did that it must not: dialogs, uncaught errors, console errors (CSP violations), requests. */
interface Watch {
  page: Page
  context: BrowserContext
  dialogs: string[]
  pageErrors: string[]
  consoleErrors: string[]
  /** Requests for anything but file:// URLs, aborted by the route handler. */
  blocked: string[]
}

async function openPage(browser: Browser): Promise<Watch> {
  const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } })
  const blocked: string[] = []
  await context.route('**/*', async (route) => {
    const url = route.request().url()
    if (url.startsWith('file://')) return route.continue()
    blocked.push(url)
    return route.abort()
  })
  context.on('request', (request) => {
    const url = request.url()
    if (!url.startsWith('file://') && !blocked.includes(url)) blocked.push(url)
  })
  const page = await context.newPage()
  const watch: Watch = { page, context, dialogs: [], pageErrors: [], consoleErrors: [], blocked }
  page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss()
  })
  page.on('pageerror', (error) => watch.pageErrors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(message.text())
  })
  return watch
}

function expectQuiet(watch: Watch): void {
  expect(watch.dialogs).toEqual([])
  expect(watch.pageErrors).toEqual([])
  expect(watch.consoleErrors).toEqual([])
  expect(watch.blocked).toEqual([])
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(1)}%`

/**
 * The page's globals as the callbacks that run in it use them: this project compiles without the DOM library, so
 * each callback reaches them through `globalThis as unknown as InPage` (the cast is gone once compiled).
 */
interface InPage {
  innerHeight: number
  scrollTo(x: number, y: number): void
  document: {
    readyState: string
    body: { hasAttribute(name: string): boolean }
    scripts: { length: number }
    querySelector(selector: string): { classList: { contains(name: string): boolean } } | null
    querySelectorAll(selector: string): { length: number }
  }
}

/** A table row as the callbacks that read its key use it. */
interface InPageRow {
  getAttribute(name: string): string | null
}

/** An element as the callbacks that run on one use it. */
interface InPageElement {
  scrollHeight: number
  scrollTo(x: number, y: number): void
  getBoundingClientRect(): { top: number; bottom: number; height: number }
}

/** Whether an element lies wholly inside the window. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((el: InPageElement) => {
    const box = el.getBoundingClientRect()
    return box.height > 0 && box.top >= 0 && box.bottom <= (globalThis as unknown as InPage).innerHeight
  })
}

async function columnTexts(page: Page, table: string, column: string): Promise<string[]> {
  return page.locator(`[data-testid="table-${table}"] [data-testid="cell-${column}"]`).allTextContents()
}

describe('report.html in headless Chromium, offline', () => {
  let browser: Browser
  let work: Awaited<ReturnType<typeof tempDir>>
  let bundle: Bundle

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: the HTML report's browser test needs Debian's Chromium. Install it with \`apt-get install chromium\`.`,
      )
    }
    work = await tempDir('aeo-html-report-')
    bundle = await writeFixtureBundle(work.path)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    await mkdir(ARTIFACTS, { recursive: true })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await work?.remove()
  })

  it('shows the figures of scores.json, opens a timeline, links a finding to its step and runs no payload', async () => {
    const watch = await openPage(browser)
    const { page } = watch
    const { summary, trials } = bundle.scores
    try {
      await page.goto(pathToFileURL(join(bundle.dir, 'report.html')).href)
      await page.waitForSelector('[data-testid="table-tasks"][data-ready="true"]', { timeout: 10_000 })

      // The headline, computed here from scores.json rather than with the report's own formatters.
      const primary = summary.headline.primary
      expect(await page.getByTestId('headline-rate').textContent()).toBe(pct(primary.rate!))
      expect(await page.getByTestId('headline-ci').textContent()).toBe(
        `${(primary.ci!.lower * 100).toFixed(1)}–${pct(primary.ci!.upper)}`,
      )
      expect(await page.getByTestId('headline-method').textContent()).toBe(
        primary.method === 't' ? 't over per-task rates' : 'Wilson',
      )
      expect(await page.getByTestId('headline-tasks').textContent()).toBe(String(primary.tasks))
      expect(await page.getByTestId('headline-trials').textContent()).toBe(String(primary.trials))
      expect(await page.getByTestId('headline-passed').textContent()).toBe(
        `${summary.passed} of ${summary.n} trials passed.`,
      )

      // One row per benchmark × target beside the pooled figure: two benchmarks, one target.
      const groups = summary.headline.groups!
      expect(groups.map((g) => g.benchmarkId)).toEqual(BENCHMARKS.map((b) => b.id))
      for (const g of groups) {
        const row = page.locator(
          `[data-testid="table-headline-groups"] [data-testid="row"][data-key="${g.benchmarkId} · ${g.target.name}"]`,
        )
        expect(await row.getByTestId('cell-rate').textContent()).toBe(pct(g.primary.rate!))
        expect(await row.getByTestId('cell-tasks').textContent()).toBe(String(g.primary.tasks))
      }

      // Every task's row.
      expect(summary.tasks).toHaveLength(6)
      expect(await page.locator('[data-testid="table-tasks"] [data-testid="row"]').count()).toBe(6)
      for (const task of summary.tasks) {
        const key = `${task.benchmarkId}/${task.taskId}`
        const row = page.locator(`[data-testid="table-tasks"] [data-testid="row"][data-key="${key}"]`)
        const ofTask = trials.filter((t) => t.benchmark.id === task.benchmarkId && t.taskId === task.taskId)
        expect(await row.getByTestId('cell-benchmark').textContent()).toBe(task.benchmarkId)
        expect(await row.getByTestId('cell-task').textContent()).toBe(task.taskId)
        expect(await row.getByTestId('cell-trials').textContent()).toBe(String(ofTask.length))
        expect(await row.getByTestId('cell-passed').textContent()).toBe(
          String(ofTask.filter((t) => t.passed).length),
        )
        expect(await row.getByTestId('cell-passRate').textContent()).toBe(pct(task.passRate))
        expect(await row.getByTestId('cell-cost').textContent()).toBe(`$${task.costUsd.toFixed(4)}`)
        expect(await row.getByTestId('cell-tokens').textContent()).toBe(
          String(ofTask.reduce((sum, t) => sum + t.usage.tokens, 0)),
        )
        expect(await row.getByTestId('cell-flaky').textContent()).toBe(task.flaky ? 'yes' : 'no')
      }

      // Per benchmark and per category.
      for (const benchmark of BENCHMARKS) {
        const row = page.locator(
          `[data-testid="table-benchmarks"] [data-testid="row"][data-key="${benchmark.id}"]`,
        )
        const ofBenchmark = trials.filter((t) => t.benchmark.id === benchmark.id)
        expect(await row.getByTestId('cell-trials').textContent()).toBe(String(ofBenchmark.length))
        expect(await row.getByTestId('cell-passed').textContent()).toBe(
          String(ofBenchmark.filter((t) => t.passed).length),
        )
      }
      for (const category of summary.categories) {
        const row = page.locator(
          `[data-testid="table-categories"] [data-testid="row"][data-key="${category.category}"]`,
        )
        expect(await row.getByTestId('cell-trials').textContent()).toBe(String(category.trials))
        expect(await row.getByTestId('cell-passRate').textContent()).toBe(pct(category.pass.mean!))
      }
      const categories = summary.categories.length
      expect(await page.getByTestId('count-categories').textContent()).toBe(
        `${categories} ${categories === 1 ? 'category' : 'categories'}`,
      )

      // The comparison with the baseline.
      expect(await page.getByTestId('comparison-verdict').textContent()).toBe(summary.comparison!.verdict)
      expect(await page.getByTestId('regressed').getByTestId('task-link').count()).toBe(
        summary.comparison!.overall.regressions.length,
      )
      expect(await page.getByTestId('broken').getByTestId('task-link').count()).toBe(
        summary.comparison!.broken.length,
      )

      // Sorting by a header, both ways, and filtering.
      const rates = () => columnTexts(page, 'tasks', 'passRate').then((xs) => xs.map(parseFloat))
      await page.locator('[data-testid="table-tasks"]').getByTestId('sort-passRate').click()
      const ascending = await rates()
      expect(ascending).toEqual([...ascending].sort((a, b) => a - b))
      expect(ascending[0]).toBeLessThan(ascending.at(-1)!)
      await page.locator('[data-testid="table-tasks"]').getByTestId('sort-passRate').click()
      expect(await rates()).toEqual([...ascending].reverse())
      await page.getByTestId('filter-tasks').fill('task-1')
      expect(await columnTexts(page, 'tasks', 'task')).toEqual(['task-1', 'task-1'])
      expect(await page.getByTestId('count-tasks').textContent()).toBe('2 of 6 tasks')
      await page.getByTestId('filter-tasks').fill('')

      // The hostile task's timeline: its failing trial opens first.
      await page
        .locator('[data-testid="table-tasks"] [data-testid="row"][data-key="toy/task-2"]')
        .getByTestId('open-task')
        .click()
      const detail = page.getByTestId('task-detail')
      expect(await detail.getByTestId('task-title').textContent()).toBe('toy/task-2')
      const trial = detail.locator('[data-testid="trial"][data-trial="1"]')
      expect(await trial.getAttribute('open')).not.toBeNull()
      expect(await trial.getByTestId('final-answer').textContent()).toBe(PAYLOAD)
      const timeline = trial.getByTestId('timeline')
      expect(await timeline.getAttribute('data-steps')).toBe(String(LAST_STEP + 1))
      const result = timeline.locator('[data-testid="step"][data-step="3"]')
      expect(await result.getAttribute('data-kind')).toBe('agent.tool_result')
      expect(await result.locator('td').nth(1).textContent()).toBe('+0.400 s')
      expect(await result.getByTestId('step-who').textContent()).toBe('calc')
      expect(await result.getByTestId('step-detail').textContent()).toContain(
        `result: ${PAYLOAD.slice(0, 60)}`,
      )
      expect(await result.getByTestId('cited-by').textContent()).toBe('cited by exact-match: wrong_answer')
      expect(await trial.getByTestId('phases').textContent()).toContain('agent from +0.05 s for 4.60 s')

      // A finding's citation of the last step scrolls there and highlights it.
      const last = `[data-testid="task-detail"] [data-testid="trial"][data-trial="1"] [data-testid="step"][data-step="${LAST_STEP}"]`
      await page.evaluate(() => (globalThis as unknown as InPage).scrollTo(0, 0))
      await trial.getByTestId('finding').locator(`[data-testid="citation"][data-step="${LAST_STEP}"]`).click()
      await page.waitForFunction(
        (s) => (globalThis as unknown as InPage).document.querySelector(s)?.classList.contains('hl'),
        last,
      )
      expect(await inView(page, last)).toBe(true)
      const link = trial.getByTestId('finding').locator('[data-testid="citation"][data-step="3"]')
      await link.scrollIntoViewIfNeeded()
      expect(await inView(page, last)).toBe(false)
      await link.click()
      const step3 = last.replace(`data-step="${LAST_STEP}"`, 'data-step="3"')
      expect(await page.locator(step3).getAttribute('class')).toContain('hl')
      expect(await page.locator(last).getAttribute('class')).not.toContain('hl')
      expect(await inView(page, step3)).toBe(true)

      // Nothing the agent wrote became markup: no <img>, no script beyond the two data blocks and the page's.
      const counts = await page.evaluate(() => {
        const { document } = globalThis as unknown as InPage
        return { images: document.querySelectorAll('img').length, scripts: document.scripts.length }
      })
      expect(counts).toEqual({ images: 0, scripts: 3 })
      await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true })
      await trial.screenshot({ path: join(ARTIFACTS, 'timeline.png') })
      expectQuiet(watch)
    } finally {
      await watch.context.close()
    }
  })

  it('shows the same page from rows written as trials ended (in their order, over several blocks) as renderHtmlReport', async () => {
    // What a run writes: each trial's row as it is folded, here in the reverse of the bundle's order.
    const { metadata, trials, summary, events } = bundle.run
    const totals = new HtmlReportAggregates()
    const rows: string[] = []
    for (const trial of [...trials].reverse()) {
      totals.add(trial)
      rows.push(`${htmlTrialRow(trial, events.get(trial)!)}\n`)
    }
    const rowsFile = join(work.path, 'rows.jsonl')
    await writeFile(rowsFile, rows.join(''))
    const streamed = join(work.path, 'streamed.html')
    await writeHtmlReportFromRows(
      streamed,
      htmlRunPart(metadata, sealedSummary(summary, taskTokens(trials)), totals),
      rowsFile,
      {
        blockChars: 4096,
      },
    )
    const blocks = (await readFile(streamed, 'utf8')).match(
      /<script type="application\/json" class="rows">/g,
    )!
    expect(blocks.length).toBeGreaterThan(1)

    /** The page's text as drawn, then each task's detail with every trial opened, in the tasks table's order. */
    async function shown(
      file: string,
    ): Promise<{ page: string; tasks: [string, string][]; scripts: number }> {
      const watch = await openPage(browser)
      const { page } = watch
      try {
        await page.goto(pathToFileURL(file).href)
        await page.waitForSelector('[data-testid="table-tasks"][data-ready="true"]', { timeout: 10_000 })
        const text = (await page.locator('#app').textContent())!
        const tasks: [string, string][] = []
        const keys = await page
          .locator('[data-testid="table-tasks"] [data-testid="row"]')
          .evaluateAll((els) => els.map((el) => (el as unknown as InPageRow).getAttribute('data-key')))
        for (const key of keys) {
          await page
            .locator(`[data-testid="table-tasks"] [data-testid="row"][data-key="${key}"]`)
            .getByTestId('open-task')
            .click()
          const detail = page.getByTestId('task-detail')
          const panels = detail.getByTestId('trial')
          for (let i = 0; i < (await panels.count()); i++) {
            if ((await panels.nth(i).getAttribute('open')) === null)
              await panels.nth(i).locator('summary').click()
            // A trial's body is built on its toggle event, which follows the click.
            await panels.nth(i).locator('.trial-body').waitFor()
          }
          tasks.push([key!, (await detail.textContent())!])
        }
        const scripts = await page.evaluate(() => (globalThis as unknown as InPage).document.scripts.length)
        expectQuiet(watch)
        return { page: text, tasks, scripts }
      } finally {
        await watch.context.close()
      }
    }
    const expected = await shown(join(bundle.dir, 'report.html'))
    const actual = await shown(streamed)
    expect(expected.tasks).toHaveLength(6)
    expect(expected.tasks.every(([, text]) => text.includes('Timeline ('))).toBe(true)
    expect(actual.page).toBe(expected.page)
    expect(actual.tasks).toEqual(expected.tasks)
    expect(expected.scripts).toBe(3)
    expect(actual.scripts).toBe(2 + blocks.length)
  })

  it('opens the task and trial a URL names, follows the hash, and writes it as the user opens one', async () => {
    const { metadata, trials, summary, events } = bundle.run
    const file = join(work.path, 'linked.html')
    await writeFile(
      file,
      renderHtmlReport({
        metadata,
        trials,
        summary,
        events: [...events.values()].flat(),
        links: { home: 'http://127.0.0.1:9/', run: 'http://127.0.0.1:9/runs/r' },
      }),
    )
    const watch = await openPage(browser)
    const { page } = watch
    const detail = page.getByTestId('task-detail')
    const opened = () =>
      detail
        .locator('[data-testid="trial"][open]')
        .evaluateAll((els) => els.map((el) => (el as unknown as InPageRow).getAttribute('data-trial')))
    const hash = () =>
      page.evaluate(() => (globalThis as unknown as { location: { hash: string } }).location.hash)
    try {
      await page.goto(`${pathToFileURL(file).href}#task=${encodeURIComponent('toy-b/task-1')}&trial=1`)
      await page.waitForSelector('[data-testid="table-tasks"][data-ready="true"]', { timeout: 10_000 })
      expect(await detail.isVisible()).toBe(true)
      expect(await detail.getByTestId('task-title').textContent()).toBe('toy-b/task-1')
      expect(await opened()).toEqual(['1'])
      expect(
        await inView(page, '[data-testid="task-detail"] [data-testid="trial"][data-trial="1"] summary'),
      ).toBe(true)
      expect(await page.getByTestId('home-link').getAttribute('href')).toBe('http://127.0.0.1:9/')

      await page
        .locator('[data-testid="table-tasks"] [data-testid="row"][data-key="toy/task-2"]')
        .getByTestId('open-task')
        .click()
      expect(await detail.getByTestId('task-title').textContent()).toBe('toy/task-2')
      expect(await hash()).toBe('#task=toy%2Ftask-2')
      await detail.locator('[data-testid="trial"][data-trial="0"] summary').click()
      await page.waitForFunction(() =>
        (globalThis as unknown as { location: { hash: string } }).location.hash.endsWith('&trial=0'),
      )
      expect(await hash()).toBe('#task=toy%2Ftask-2&trial=0')

      // A link followed within the page (another hash): the panel follows it without a reload.
      await page.evaluate(() => {
        ;(globalThis as unknown as { location: { hash: string } }).location.hash =
          '#task=toy%2Ftask-0&trial=1'
      })
      await page.waitForFunction(
        () =>
          (globalThis as unknown as InPage).document.querySelector(
            '[data-testid="task-detail"][data-task="toy/task-0"]',
          ) !== null,
      )
      expect(await opened()).toEqual(['1'])
      await page.goBack()
      await page.waitForFunction(
        () =>
          (globalThis as unknown as InPage).document.querySelector(
            '[data-testid="task-detail"][data-task="toy/task-2"]',
          ) !== null,
      )
      expect(await opened()).toEqual(['0'])
      expectQuiet(watch)
    } finally {
      await watch.context.close()
    }
  })

  it('draws only the rows in view of a 3,000-task table, and reaches the last by scrolling', async () => {
    const trials = Array.from({ length: 3000 }, (_, i) =>
      scoredTrial({
        taskId: `t-${String(i).padStart(4, '0')}`,
        passed: i % 3 !== 0,
        tokens: 100 + i,
        category: `c${i % 5}`,
      }),
    )
    const summary = makeSummary(trials)
    const html = renderHtmlReport({ metadata: makeMetadata(trials), trials, summary, events: [] })
    const file = join(work.path, 'large.html')
    await writeFile(file, html)
    const watch = await openPage(browser)
    const { page } = watch
    try {
      await page.goto(pathToFileURL(file).href)
      await page.waitForSelector('[data-testid="table-tasks"][data-ready="true"]', { timeout: 10_000 })
      const rows = page.locator('[data-testid="table-tasks"] [data-testid="row"]')
      expect(await page.getByTestId('table-tasks').getAttribute('data-rows')).toBe('3000')
      const drawn = await rows.count()
      expect(drawn).toBeGreaterThan(10)
      expect(drawn).toBeLessThan(100)
      await page.getByTestId('scroll-tasks').evaluate((el: InPageElement) => el.scrollTo(0, el.scrollHeight))
      await page.waitForSelector('[data-testid="table-tasks"] [data-key="toy/t-2999"]')
      expect(await rows.count()).toBeLessThan(100)
      await page.locator('[data-testid="table-tasks"]').getByTestId('sort-tokens').click()
      await page.locator('[data-testid="table-tasks"]').getByTestId('sort-tokens').click()
      expect(await rows.first().getAttribute('data-key')).toBe('toy/t-2999')
      await page.getByTestId('filter-tasks').fill('t-1234')
      expect(await columnTexts(page, 'tasks', 'task')).toEqual(['t-1234'])
      expectQuiet(watch)
    } finally {
      await watch.context.close()
    }
  })

  it('would notice a payload that ran, or a script the policy refused (the checks can fail)', async () => {
    const watch = await openPage(browser)
    try {
      await watch.page.setContent('<script>alert(1)</script>')
      expect(watch.dialogs).toEqual(['alert: 1'])
    } finally {
      await watch.context.close()
    }
    const html = await readFile(join(bundle.dir, 'report.html'), 'utf8')
    const tampered = join(work.path, 'tampered.html')
    // One more character in the script: its hash no longer matches the policy's.
    const script = `<script>${uiAsset('report').script.slice(0, 20)}`
    expect(html).toContain(script)
    await writeFile(tampered, html.replace(script, script.replace('<script>', '<script> ')))
    const refused = await openPage(browser)
    try {
      await refused.page.goto(pathToFileURL(tampered).href)
      await refused.page.waitForFunction(
        () => (globalThis as unknown as InPage).document.readyState === 'complete',
      )
      const ready = await refused.page.evaluate(() =>
        (globalThis as unknown as InPage).document.body.hasAttribute('data-ready'),
      )
      expect(ready).toBe(false)
      expect(refused.consoleErrors.join('\n')).toMatch(/Content Security Policy/)
    } finally {
      await refused.context.close()
    }
  })
})
