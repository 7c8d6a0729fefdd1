/**
 * `agentevalops view` in a real browser: the server over 30 sealed runs of one benchmark (test/support/bundle-series.ts)
 * and two hostile bundles, the app opened in Debian's headless Chromium. The runs list, the series' trend, its task
 * history, the comparison of the last two runs and one run's report must show what the bundles say, list the hostile
 * bundles as invalid with their problems as text, and run nothing that came from them. Screenshots of each page go to
 * test-results/view/; with AGENTEVALOPS_DOC_SCREENSHOTS=1 the documentation's images in docs/images/ are rewritten too.
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import fc from 'fast-check'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runUrl } from '../../../src/view/api.ts'
import { compareRunFolders, taskHistory, trendSeries } from '../../../src/view/history/index.ts'
import { startViewServer, type ViewServer } from '../../../src/view/server/index.ts'
import { buildBundle, copyBundle, restampManifest, tempDir } from '../../bundles/fixtures.ts'
import { applyEdits, byteEdit, jsonEdit } from '../../bundles/mutations.ts'
import {
  allTasks,
  passes,
  SERIES_BENCHMARK,
  SERIES_TARGET,
  SERIES_TASKS,
  writeBundleSeries,
  type SeriesRun,
} from '../../support/bundle-series.ts'
import { CHROMIUM, CHROMIUM_ARGS } from '../../support/chromium.ts'

const ARTIFACTS = join(process.cwd(), 'test-results', 'view')
const DOC_IMAGES =
  process.env.AGENTEVALOPS_DOC_SCREENSHOTS === '1' ? join(process.cwd(), 'docs', 'images') : null
const VIEWPORT = { width: 1200, height: 800 }
const COUNT = 30
/** The fuzz test's seed (test/view/server/hostile.test.ts draws its corpus from it too). */
const SEED = 20_251_130
/** Set by the payload if any of it ever ran as script. */
const MARKER = '__agentevalopsPwned'
const PAYLOAD = `<script>window.${MARKER}=1;alert(1)</script><img src=x onerror="window.${MARKER}=2;alert(2)">`
/** The hostile bundles' folders: a fuzz edit of scores.json, and one whose labels and manifest carry the payload. */
const FUZZED = 'fuzz-scores'
const SCRIPTED = 'scripted-markup'
const SERIES = { benchmark: SERIES_BENCHMARK, target: SERIES_TARGET }
const key = (taskId: string) => `${SERIES_BENCHMARK}/${taskId}`

/** What a page did that it must not: dialogs, uncaught errors, console errors, requests off the server. */
interface Watch {
  page: Page
  context: BrowserContext
  dialogs: string[]
  pageErrors: string[]
  consoleErrors: string[]
  offServer: string[]
}

/**
 * The page's globals as the callbacks that run in it use them: the project compiles without the DOM library, so
 * each callback reaches them through `globalThis as unknown as InPage`.
 */
interface InPage {
  document: { querySelectorAll(selector: string): { length: number } }
  [MARKER]?: unknown
}

/** An element as the callbacks that read its attributes use it. */
interface InPageElement {
  getAttribute(name: string): string | null
  value: string
}

let work: Awaited<ReturnType<typeof tempDir>>
let runsDir: string
let series: SeriesRun[]
/** The series' folder names, oldest first. */
let folders: string[]
let server: ViewServer
let browser: Browser

/** Two bundles no browser may run a byte of, beside the series in the runs folder. */
async function writeHostileBundles(): Promise<void> {
  const pristine = await buildBundle(join(work.path, 'build'))
  // The first of the fuzz test's edit lists (from its seed) that changes scores.json: the manifest is not
  // re-stamped, so its checksum must catch the change.
  const original = await readFile(join(pristine, 'scores.json'))
  const edited = fc
    .sample(fc.array(fc.oneof(byteEdit, jsonEdit), { minLength: 1, maxLength: 3 }), {
      seed: SEED,
      numRuns: 12,
    })
    .map((edits) => applyEdits('scores.json', original, edits))
    .find((bytes) => !bytes.equals(original))!
  const fuzzed = await copyBundle(pristine, join(runsDir, FUZZED))
  await writeFile(join(fuzzed, 'scores.json'), edited)

  // Labels that pass the schema (so the row shows them) and a manifest entry whose path the problem quotes.
  const scripted = await copyBundle(pristine, join(runsDir, SCRIPTED))
  const metadataPath = join(scripted, 'metadata.json')
  const metadata = JSON.parse(await readFile(metadataPath, 'utf8')) as { labels: Record<string, string> }
  metadata.labels = { ...metadata.labels, note: PAYLOAD }
  await writeFile(metadataPath, `${JSON.stringify(metadata, null, 2)}\n`)
  await restampManifest(scripted)
  const manifestPath = join(scripted, 'manifest.json')
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { files: object[] }
  manifest.files.push({ path: `../${PAYLOAD}`, size: 1, sha256: '0'.repeat(64) })
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`)
}

async function openPage(): Promise<Watch> {
  const context = await browser.newContext({ viewport: VIEWPORT })
  const watch: Watch = {
    page: await context.newPage(),
    context,
    dialogs: [],
    pageErrors: [],
    consoleErrors: [],
    offServer: [],
  }
  // Nothing leaves the server: a payload's <img src=x> or fetch would show here (and is refused).
  await context.route('**/*', async (route) => {
    const url = route.request().url()
    if (url.startsWith(server.url)) return route.continue()
    watch.offServer.push(url)
    return route.abort()
  })
  watch.page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss()
  })
  watch.page.on('pageerror', (error) => watch.pageErrors.push(error.message))
  watch.page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(message.text())
  })
  return watch
}

/** Runs `body` on a fresh page, then checks the page stayed quiet and that no payload ran. */
async function onPage(body: (page: Page) => Promise<void>): Promise<void> {
  const watch = await openPage()
  try {
    await body(watch.page)
    const state = await watch.page.evaluate((marker) => {
      const page = globalThis as unknown as InPage
      return { marker: page[marker as typeof MARKER], images: page.document.querySelectorAll('img').length }
    }, MARKER)
    expect(state).toEqual({ marker: undefined, images: 0 })
    expect(watch.dialogs).toEqual([])
    expect(watch.pageErrors).toEqual([])
    expect(watch.consoleErrors).toEqual([])
    expect(watch.offServer).toEqual([])
  } finally {
    await watch.context.close()
  }
}

/** The test's screenshot (the whole page) and, when asked for, the documentation's (the window only). */
async function screenshots(page: Page, name: string, docs: boolean): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
  if (docs && DOC_IMAGES) await page.screenshot({ path: join(DOC_IMAGES, `view-${name}.png`) })
}

function attributes(page: Page, selector: string, name: string): Promise<(string | null)[]> {
  return page
    .locator(selector)
    .evaluateAll((els, attr) => els.map((el) => (el as unknown as InPageElement).getAttribute(attr)), name)
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the view's browser test needs Debian's Chromium. Install it with \`apt-get install chromium\`.`,
    )
  }
  work = await tempDir('aeo-view-browser-')
  runsDir = join(work.path, 'view-folder')
  series = await writeBundleSeries(runsDir, { count: COUNT })
  folders = series.map((r) => basename(r.dir))
  await writeHostileBundles()
  server = await startViewServer({
    runsDir,
    port: 0,
    history: { trendSeries, taskHistory, compareRunFolders },
  })
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  await mkdir(ARTIFACTS, { recursive: true })
  if (DOC_IMAGES) await mkdir(DOC_IMAGES, { recursive: true })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await work?.remove()
})

describe('agentevalops view in headless Chromium', () => {
  it('lists the 30 runs as valid and the hostile bundles as invalid, their problems as text, running none of it', async () => {
    await onPage(async (page) => {
      await page.goto(server.url)
      const rows = page.locator('[data-testid="run-row"]')
      await page.locator(`[data-testid="run-row"][data-run="${SCRIPTED}"]`).waitFor()
      expect(await rows.count()).toBe(COUNT + 2)
      expect(await page.getByTestId('runs-count').textContent()).toBe(`${COUNT + 2} of ${COUNT + 2} runs`)

      // Newest first: the series from its last run back, then the two hostile bundles (started a year earlier).
      const valid = await attributes(page, '[data-testid="run-row"][data-state="valid"]', 'data-run')
      expect(valid).toEqual([...folders].reverse())
      const invalid = await attributes(page, '[data-testid="run-row"][data-state="invalid"]', 'data-run')
      expect([...invalid].sort()).toEqual([FUZZED, SCRIPTED])

      for (const run of [FUZZED, SCRIPTED]) {
        const row = page.locator(`[data-testid="run-row"][data-run="${run}"]`)
        expect(await row.getByTestId('badge-invalid').textContent()).toBe('invalid')
        expect(await row.getByTestId('run-pick').isDisabled()).toBe(true)
        expect((await row.getByTestId('run-problems').locator('li').count()) > 0, run).toBe(true)
      }
      // The checksum the fuzz edit broke.
      expect(
        await page
          .locator(`[data-testid="run-row"][data-run="${FUZZED}"] [data-testid="run-problems"]`)
          .textContent(),
      ).toContain('scores.json: ')
      // The payload as the problem quotes it and as the labels carry it: text, character for character.
      const scripted = page.locator(`[data-testid="run-row"][data-run="${SCRIPTED}"]`)
      expect(await scripted.getByTestId('run-problems').textContent()).toBe(
        `manifest.json: lists ${JSON.stringify(`../${PAYLOAD}`)}, which is not a path inside the bundle`,
      )
      expect(await scripted.locator('[data-col="labels"]').textContent()).toContain(PAYLOAD)

      // The series links of a valid row lead to its trend and its history.
      const latest = page.locator(`[data-testid="run-row"][data-run="${folders.at(-1)}"]`)
      expect(await latest.getByTestId('run-trend-link').getAttribute('href')).toBe(
        `/trends?benchmark=${SERIES_BENCHMARK}&target=${SERIES_TARGET}`,
      )
      expect(await latest.getByTestId('run-compare-previous').getAttribute('href')).toBe(
        `/compare?baseline=${folders.at(-2)}&candidate=${folders.at(-1)}`,
      )
      await screenshots(page, 'runs-list', true)
      await scripted.scrollIntoViewIfNeeded()
      await scripted.screenshot({ path: join(ARTIFACTS, 'runs-invalid-row.png') })
    })
  })

  it('draws the series’ trend: one point per run with its interval, in run order', async () => {
    await onPage(async (page) => {
      await page.goto(`${server.url}trends`)
      const chart = page.locator(
        `[data-testid="trend-chart"][data-benchmark="${SERIES_BENCHMARK}"][data-target="${SERIES_TARGET}"]`,
      )
      await chart.getByTestId('trend-point').first().waitFor()
      // The toy benchmark's bundles are invalid: this series is the only one.
      expect(await page.getByTestId('trend-chart').count()).toBe(1)
      const points = chart.getByTestId('trend-point')
      expect(await points.count()).toBe(COUNT)
      expect(await chart.locator('[data-testid="trend-point"] [data-testid="trend-ci"]').count()).toBe(COUNT)
      for (let i = 0; i < COUNT; i++) expect(await points.nth(i).getByTestId('trend-ci').count()).toBe(1)
      expect(await attributes(page, '[data-testid="trend-point"]', 'data-run')).toEqual(folders)

      // Each point is the run's own rate (one trial a task), and each interval spans it.
      const tasks = allTasks()
      const rates = (await attributes(page, '[data-testid="trend-point"]', 'data-rate')).map(Number)
      expect(rates).toEqual(
        series.map((r) => tasks.filter((t) => passes(t, r.index, COUNT)).length / tasks.length),
      )
      const whiskers = await chart
        .locator('[data-testid="trend-ci"]')
        .evaluateAll((els) =>
          els.map((el) => [
            Number((el as unknown as InPageElement).getAttribute('y1')),
            Number((el as unknown as InPageElement).getAttribute('y2')),
          ]),
        )
      // SVG y grows downward: the upper bound's end is above (smaller than) the lower bound's.
      for (const [upper, lower] of whiskers) expect(upper!).toBeLessThan(lower!)
      // The first run had no baseline; every later one was compared with the run before it.
      const verdicts = await attributes(page, '[data-testid="trend-point"]', 'data-verdict')
      expect(verdicts[0]).toBe('none')
      expect(verdicts.slice(1).every((v) => v !== 'none')).toBe(true)
      expect(await chart.getByTestId('trend-legend').textContent()).toContain('interval')
      await screenshots(page, 'trends', true)
    })
  })

  it('groups the task history: the flaky task with its evidence, the regressing one flipped and regressed', async () => {
    await onPage(async (page) => {
      await page.goto(`${server.url}history?benchmark=${SERIES.benchmark}&target=${SERIES.target}`)
      const history = page.locator(
        `[data-testid="history"][data-benchmark="${SERIES_BENCHMARK}"][data-target="${SERIES_TARGET}"]`,
      )
      await history.waitFor()
      const flaky = history.locator(
        `[data-testid="history-kind-flaky"] [data-testid="history-task"][data-task="${key(SERIES_TASKS.flaky)}"]`,
      )
      expect(await flaky.getAttribute('data-kind')).toBe('flaky')
      expect(await history.getByTestId('history-kind-flaky').getByTestId('history-task').count()).toBe(1)

      // The evidence names the runs it passed and failed in, oldest first, each a link to the task in that run.
      const passedIn = folders.filter((_, i) => passes(SERIES_TASKS.flaky, i, COUNT))
      const failedIn = folders.filter((_, i) => !passes(SERIES_TASKS.flaky, i, COUNT))
      expect(failedIn).toHaveLength(COUNT / 3)
      const lines = flaky.getByTestId('history-evidence').locator('li')
      expect(await lines.count()).toBe(2)
      expect(await lines.nth(0).textContent()).toBe(`passed in (${passedIn.length}): ${passedIn.join(', ')}`)
      expect(await lines.nth(1).textContent()).toBe(`failed in (${failedIn.length}): ${failedIn.join(', ')}`)
      expect(await attributes(page, '[data-testid="history-evidence"] li:nth-child(2) a', 'href')).toEqual(
        failedIn.map((run) => `${runUrl('', run)}/tasks/${encodeURIComponent(key(SERIES_TASKS.flaky))}`),
      )
      // One cell per run, and each says what the run did.
      expect(await attributes(page, `[data-task="${key(SERIES_TASKS.flaky)}"] td`, 'data-outcome')).toEqual(
        series.map((r) => (passes(SERIES_TASKS.flaky, r.index, COUNT) ? 'pass' : 'fail')),
      )

      const regressed = history.locator(
        `[data-testid="history-kind-flipped"] [data-testid="history-task"][data-task="${key(SERIES_TASKS.regressed)}"]`,
      )
      expect(await regressed.getAttribute('data-kind')).toBe('flipped')
      expect(await regressed.getByTestId('history-direction').textContent()).toBe('regressed')
      expect(
        await history
          .locator(`[data-testid="history-kind-never-passed"] [data-testid="history-task"]`)
          .evaluateAll((els) => els.map((el) => (el as unknown as InPageElement).getAttribute('data-task'))),
      ).toEqual([key(SERIES_TASKS.neverPassed)])
      // Kinds in the order a reader needs them.
      expect(await attributes(page, '[data-testid^="history-kind-"]', 'data-testid')).toEqual([
        'history-kind-never-passed',
        'history-kind-flaky',
        'history-kind-flipped',
        'history-kind-stable',
      ])
      await screenshots(page, 'history', true)
    })
  })

  it('compares the last two runs by default, the regression listed before any improvement', async () => {
    await onPage(async (page) => {
      await page.goto(`${server.url}compare`)
      const result = page.getByTestId('compare-result')
      await result.waitFor()
      expect(
        await page.getByTestId('compare-baseline').evaluate((el) => (el as unknown as InPageElement).value),
      ).toBe(folders.at(-2))
      expect(
        await page.getByTestId('compare-candidate').evaluate((el) => (el as unknown as InPageElement).value),
      ).toBe(folders.at(-1))

      // In the page's order: the task that passed in every run but the last comes first, broken (100 % → 0 %).
      const listed = await attributes(
        page,
        '[data-testid="compare-result"] [data-testid="compare-task"]',
        'data-task',
      )
      expect(listed[0]).toBe(key(SERIES_TASKS.regressed))
      expect(
        await attributes(page, '[data-testid="compare-broken"] [data-testid="compare-task"]', 'data-task'),
      ).toEqual([key(SERIES_TASKS.regressed)])
      // The flaky task failed in the run before the last and passed in the last: an improvement, listed after.
      const improved = await attributes(
        page,
        '[data-testid="compare-improved"] [data-testid="compare-task"]',
        'data-task',
      )
      expect(improved).toEqual([key(SERIES_TASKS.flaky)])
      expect(listed.indexOf(key(SERIES_TASKS.flaky))).toBeGreaterThan(0)
      expect(await page.getByTestId('compare-delta').textContent()).toMatch(/^Change /)
      await screenshots(page, 'compare', true)
    })
  })

  it('would notice a payload that ran (the checks can fail)', async () => {
    const watch = await openPage()
    try {
      await watch.page.setContent(PAYLOAD)
      // The script sets the marker to 1 and alerts; the image's onerror, later, to 2.
      const marker = await watch.page.evaluate(
        (name) => (globalThis as unknown as InPage)[name as typeof MARKER],
        MARKER,
      )
      expect(marker === 1 || marker === 2).toBe(true)
      expect(watch.dialogs[0]).toBe('alert: 1')
    } finally {
      await watch.context.close()
    }
  })

  it('serves a run’s report rendered by the server, with links back to the app', async () => {
    const run = folders.at(-1)!
    await onPage(async (page) => {
      await page.goto(`${server.url}runs/${run}`)
      await page.getByTestId('run-report-link').click()
      await page.waitForSelector('[data-testid="table-tasks"][data-ready="true"]', { timeout: 10_000 })
      expect(new URL(page.url()).pathname).toBe(`${runUrl('', run)}/report`)
      // The page's data names where it sits in the app; its header shows the way back to the runs list.
      const data = JSON.parse((await page.locator('script#data').textContent())!) as {
        links?: { home: string; run: string }
      }
      expect(data.links).toEqual({ home: '/', run: runUrl('', run) })
      expect(await page.getByTestId('home-link').getAttribute('href')).toBe('/')
      expect(await page.getByTestId('headline-passed').textContent()).toBe(
        `${allTasks().filter((t) => passes(t, COUNT - 1, COUNT)).length} of ${allTasks().length} trials passed.`,
      )
      await screenshots(page, 'report', false)
      await page.getByTestId('home-link').click()
      await page.getByTestId('page-runs').waitFor()
      expect(new URL(page.url()).pathname).toBe('/')
    })
  })
})
