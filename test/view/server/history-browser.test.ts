// `agentevalops view` in real Chromium over a runs folder of 30 bundles of one benchmark (test/support/bundle-series:
// a target improving, one task flaky, one regressing in the last run) and one hostile bundle: the runs list marks the
// hostile one invalid and runs nothing of it, the trend shows the 30 points with their intervals in run order, the
// history lists the flaky task with the runs that show it, and compare of the last two lists the regression first.
// Screenshots go to test-results/view/.
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { compareRunFolders, taskHistory, trendSeries } from '../../../src/view/history/index.ts'
import { startViewServer, type ViewServer } from '../../../src/view/server/index.ts'
import { copyBundle, tempDir } from '../../bundles/fixtures.ts'
import { CHROMIUM, CHROMIUM_ARGS } from '../../support/chromium.ts'
import {
  SERIES_BENCHMARK,
  SERIES_TARGET,
  SERIES_TASKS,
  writeBundleSeries,
  type SeriesRun,
} from '../../support/bundle-series.ts'

const SCREENSHOTS = join('test-results', 'view')
const HOSTILE = 'hostile-run'
/** What the hostile bundle's payloads would set, were any of them run. */
const MARKER = '__aeoHostileRan'
const PAYLOAD = `<script>window.${MARKER}=1;alert(1)</script><img src=x onerror="window.${MARKER}=2">`

interface InPage {
  [MARKER]?: number
}

let work: Awaited<ReturnType<typeof tempDir>>
let server: ViewServer
let browser: Browser
let page: Page
let series: SeriesRun[]
const dialogs: string[] = []

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install chromium\`.`)
  work = await tempDir('aeo-view-browser-')
  const runsDir = join(work.path, 'runs-folder')
  series = await writeBundleSeries(runsDir)
  // A copy of the last run with script in its labels and its own report.html, the manifest not re-stamped.
  const hostile = await copyBundle(series.at(-1)!.dir, join(runsDir, HOSTILE))
  const metadataPath = join(hostile, 'metadata.json')
  const metadata = JSON.parse(await readFile(metadataPath, 'utf8')) as { labels: Record<string, string> }
  metadata.labels = { ...metadata.labels, note: PAYLOAD }
  await writeFile(metadataPath, JSON.stringify(metadata))
  await writeFile(join(hostile, 'report.html'), `<!doctype html>${PAYLOAD}`)

  server = await startViewServer({
    runsDir,
    port: 0,
    live: false,
    history: { trendSeries, taskHistory, compareRunFolders },
  })
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  page = await browser.newPage({ viewport: { width: 1200, height: 800 } })
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  await mkdir(SCREENSHOTS, { recursive: true })
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
  await work?.remove()
})

async function open(path: string, testid: string): Promise<void> {
  await page.goto(new URL(path, server.url).href)
  await page.getByTestId(testid).waitFor()
}

async function hostileRan(): Promise<number | undefined> {
  return page.evaluate((marker) => (globalThis as unknown as InPage)[marker as typeof MARKER], MARKER)
}

it('lists the 30 runs and the hostile bundle as invalid, running nothing of it', async () => {
  await open('/', 'runs-table')
  const rows = page.getByTestId('run-row')
  await expect.poll(() => rows.count()).toBe(31)
  expect(await page.locator('[data-testid="run-row"][data-state="valid"]').count()).toBe(30)
  const hostile = page.locator(`[data-testid="run-row"][data-run="${HOSTILE}"]`)
  expect(await hostile.getAttribute('data-state')).toBe('invalid')
  await expect.poll(() => hostile.getByTestId('badge-invalid').count()).toBe(1)
  // Its problems are shown as text: the checksum the edit broke.
  expect(await hostile.textContent()).toMatch(/metadata\.json/)
  await page.screenshot({ path: join(SCREENSHOTS, 'runs-list.png') })

  // Its own report.html is never served: the report route says what is wrong with it instead.
  await page.goto(new URL(`/runs/${HOSTILE}/report`, server.url).href)
  expect(await page.locator('body').textContent()).toMatch(/metadata\.json/)
  expect(await hostileRan()).toBeUndefined()
  expect(dialogs).toEqual([])
})

it('trends: the series shows its 30 runs in order, each with its interval', async () => {
  await open('/trends', 'trend-chart')
  const chart = page.locator(
    `[data-testid="trend-chart"][data-benchmark="${SERIES_BENCHMARK}"][data-target="${SERIES_TARGET}"]`,
  )
  const points = chart.getByTestId('trend-point')
  expect(await points.count()).toBe(30)
  const order = await points.evaluateAll((els) =>
    els.map((el) => (el as unknown as { getAttribute(n: string): string | null }).getAttribute('data-run')),
  )
  expect(order).toEqual(series.map((run) => run.runId))
  expect(await chart.getByTestId('trend-ci').count()).toBe(30)
  // The target improves: the last run's rate above the first's.
  const rates = await points.evaluateAll((els) =>
    els.map((el) =>
      Number((el as unknown as { getAttribute(n: string): string | null }).getAttribute('data-rate')),
    ),
  )
  expect(rates.at(-2)!).toBeGreaterThan(rates[0]!)
  await page.screenshot({ path: join(SCREENSHOTS, 'trends.png') })
})

it('history: the flaky task is listed as flaky with the runs that show it; the regression as flipped', async () => {
  const query = new URLSearchParams({ benchmark: SERIES_BENCHMARK, target: SERIES_TARGET })
  await open(`/history?${query.toString()}`, 'history')
  const flaky = page.getByTestId('history-kind-flaky').locator(`[data-testid="history-task"]`, {
    hasText: SERIES_TASKS.flaky,
  })
  await flaky.first().waitFor()
  const evidence = page.getByTestId('history-kind-flaky').getByTestId('history-evidence').first()
  const text = (await evidence.textContent()) ?? ''
  // Fails in every third run (the 2nd, 5th, …): 10 of 30 failed, 20 passed, each run named.
  expect(text).toMatch(/passed in \(20\)/)
  expect(text).toMatch(/failed in \(10\)/)
  expect(text).toContain(series[1]!.runId)
  expect(await evidence.locator('a').count()).toBe(30)
  const regressed = page.locator(`[data-testid="history-task"][data-task$="/${SERIES_TASKS.regressed}"]`)
  expect(await regressed.getAttribute('data-kind')).toBe('flipped')
  expect(await regressed.getByTestId('history-direction').textContent()).toMatch(/regressed/)
  await page.screenshot({ path: join(SCREENSHOTS, 'history.png'), fullPage: true })
})

it('a run’s report, rendered by the server, links back to the runs list', async () => {
  const last = series.at(-1)!
  await open(`/runs/${last.runId}/report`, 'run')
  const home = page.getByTestId('home-link')
  expect(await home.getAttribute('href')).toBe('/')
  await page.screenshot({ path: join(SCREENSHOTS, 'report.png') })
  await home.click()
  await page.getByTestId('page-runs').waitFor()
  expect(new URL(page.url()).pathname).toBe('/')
})

it('compare of the last two runs lists the regression first', async () => {
  const [baseline, candidate] = series.slice(-2)
  const query = new URLSearchParams({ baseline: baseline!.runId, candidate: candidate!.runId })
  await open(`/compare?${query.toString()}`, 'compare-result')
  const tasks = page.getByTestId('compare-result').getByTestId('compare-task')
  const first = await tasks.first().getAttribute('data-task')
  expect(first).toBe(`${SERIES_BENCHMARK}/${SERIES_TASKS.regressed}`)
  // It is in the worse-off lists, which come before any improvement.
  const worse = page.locator('[data-testid="compare-broken"], [data-testid="compare-regressed"]')
  expect(await worse.getByTestId('compare-task').first().getAttribute('data-task')).toBe(first)
  await page.screenshot({ path: join(SCREENSHOTS, 'compare.png'), fullPage: true })
  expect(await hostileRan()).toBeUndefined()
  expect(dialogs).toEqual([])
})
