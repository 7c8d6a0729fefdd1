// @vitest-environment happy-dom
import { render } from 'preact'
import { act } from 'preact/test-utils'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import type { RunEntry, RunsResponse } from '../../../src/view/api.ts'
import { App } from '../../../ui/view/app.tsx'
import { at, FakeEventSource, runEntry, stubServer } from './fixtures.ts'

beforeEach(() => {
  FakeEventSource.install()
  at('/')
})
afterEach(() => {
  render(null, document.body)
  vi.unstubAllGlobals()
})

const q = (selector: string) => [...document.querySelectorAll(selector)]
const runsShown = () => q('[data-testid="run-row"]').map((row) => row.getAttribute('data-run'))

function runs(list: RunEntry[]): RunsResponse {
  return { runsDir: '/tmp/evals', runs: list }
}

async function renderApp() {
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelector('[data-testid="runs-table"]')).not.toBeNull())
}

async function input(element: Element, value: string, event: 'input' | 'change') {
  await act(() => {
    ;(element as HTMLInputElement).value = value
    element.dispatchEvent(new Event(event, { bubbles: true }))
  })
}

const three = [
  runEntry('r-old', { startedAt: '2026-12-01T08:00:00.000Z', labels: { branch: 'main' } }),
  runEntry('r-mid', {
    startedAt: '2026-12-01T09:00:00.000Z',
    targets: ['claude'],
    headline: { ...runEntry('x').headline!, target: 'claude', rate: 0.9, ci: { lower: 0.8, upper: 0.95 } },
    groups: [],
    status: 'interrupted',
  }),
  runEntry('r-new', {
    startedAt: '2026-12-01T10:00:00.000Z',
    benchmarks: ['humaneval'],
    headline: { ...runEntry('x').headline!, benchmark: 'humaneval', rate: 0.5, ci: null },
    groups: [],
  }),
]

test('the runs list shows each run newest first, with its pass rate and interval, short sha and labels', async () => {
  stubServer({ '/api/runs': runs(three) })
  await renderApp()
  expect(runsShown()).toEqual(['r-new', 'r-mid', 'r-old'])
  const old = document.querySelector('[data-run="r-old"]')!
  expect(old.querySelector('[data-col="rate"]')!.textContent).toBe('72.0 % [61.2, 81.0]')
  expect(old.querySelector('[data-col="sha"]')!.textContent).toBe('0123456')
  expect(old.querySelector('[data-col="labels"]')!.textContent).toBe('branch=main')
  expect(old.querySelector('[data-col="cost"]')!.textContent).toBe('$0.0123')
  expect(old.querySelector('[data-testid="run-link"]')!.getAttribute('href')).toBe('/runs/r-old')
  expect(old.querySelector('[data-testid="run-history-link"]')!.getAttribute('href')).toBe(
    '/history?benchmark=toy&target=mock',
  )
})

test('the text filter reads every column, the selects narrow by status, benchmark and target', async () => {
  stubServer({ '/api/runs': runs(three) })
  await renderApp()
  const filter = document.querySelector('[data-testid="runs-filter"]')!
  await input(filter, 'BRANCH=main', 'input')
  expect(runsShown()).toEqual(['r-old'])
  await input(filter, '90.0 %', 'input')
  expect(runsShown()).toEqual(['r-mid'])
  await input(filter, '', 'input')
  await input(document.querySelector('[data-testid="runs-benchmark"]')!, 'humaneval', 'change')
  expect(runsShown()).toEqual(['r-new'])
  await input(document.querySelector('[data-testid="runs-benchmark"]')!, '', 'change')
  await input(document.querySelector('[data-testid="runs-target"]')!, 'claude', 'change')
  expect(runsShown()).toEqual(['r-mid'])
  await input(document.querySelector('[data-testid="runs-target"]')!, '', 'change')
  await input(document.querySelector('[data-testid="runs-status"]')!, 'completed', 'change')
  expect(runsShown()).toEqual(['r-new', 'r-old'])
  expect(document.querySelector('[data-testid="runs-count"]')!.textContent).toBe('2 of 3 runs')
})

test('a header sorts by its column, a second click reverses it', async () => {
  stubServer({ '/api/runs': runs(three) })
  await renderApp()
  const byRate = document.querySelector('[data-testid="sort-rate"]') as HTMLButtonElement
  await act(() => byRate.click())
  expect(runsShown()).toEqual(['r-new', 'r-old', 'r-mid'])
  expect(byRate.parentElement!.getAttribute('aria-sort')).toBe('ascending')
  await act(() => byRate.click())
  expect(runsShown()).toEqual(['r-mid', 'r-old', 'r-new'])
})

test('an invalid run shows a badge and its problems as text; markup from a bundle stays text', async () => {
  const hostile = '<img src=x onerror="window.pwned=1"> metadata.json: runId is missing'
  stubServer({
    '/api/runs': runs([
      runEntry('bad', {
        state: 'invalid',
        problems: [hostile, 'manifest.json: checksum mismatch'],
        headline: null,
        groups: [],
      }),
    ]),
  })
  await renderApp()
  const row = document.querySelector('[data-run="bad"]')!
  expect(row.querySelector('[data-testid="badge-invalid"]')!.textContent).toBe('invalid')
  const problems = [...row.querySelectorAll('[data-testid="run-problems"] li')].map((li) => li.textContent)
  expect(problems).toEqual([hostile, 'manifest.json: checksum mismatch'])
  expect(row.querySelector('img')).toBeNull()
  expect((row.querySelector('[data-testid="run-pick"]') as HTMLInputElement).disabled).toBe(true)
})

test('live events: a started run appears running, its progress updates the row without a refetch, its end replaces it', async () => {
  const server = stubServer({ '/api/runs': runs([runEntry('r-old')]) })
  await renderApp()
  const source = FakeEventSource.last()
  expect(source.url).toBe('/api/events')
  await act(() => source.open())
  const live = runEntry('r-live', {
    state: 'live',
    status: 'running',
    startedAt: '2026-12-02T07:00:00.000Z',
    finishedAt: null,
    trials: 1,
    passed: 1,
    headline: null,
    groups: [],
  })
  await act(() => source.send({ type: 'run-started', run: live }))
  const row = () => document.querySelector('[data-run="r-live"]')!
  expect(runsShown()).toEqual(['r-live', 'r-old'])
  expect(row().querySelector('[data-testid="badge-running"]')!.textContent).toBe('running')
  expect(row().querySelector('[data-testid="live-counts"]')!.textContent).toBe('1/1 so far')

  await act(() => source.send({ type: 'run-progress', run: { ...live, trials: 4, passed: 3 } }))
  expect(row().querySelector('[data-testid="live-counts"]')!.textContent).toBe('3/4 so far')
  expect(row().querySelector('[data-col="rate"]')!.textContent).toBe('75.0 % so far')
  expect(server.asked).toEqual(['/api/runs'])

  await act(() => source.send({ type: 'run-ended', run: runEntry('r-live', { startedAt: live.startedAt }) }))
  expect(row().getAttribute('data-state')).toBe('valid')
  expect(row().querySelector('[data-testid="badge-running"]')).toBeNull()
  expect(row().querySelector('[data-col="rate"]')!.textContent).toBe('72.0 % [61.2, 81.0]')
  expect(server.asked).toEqual(['/api/runs'])
})

test('runs-changed asks for the list again; an event the page cannot read is reported, not dropped silently', async () => {
  const server = stubServer({ '/api/runs': runs([runEntry('r-old')]) })
  await renderApp()
  server.answers['/api/runs'] = runs([
    runEntry('r-old'),
    runEntry('r-copied', { startedAt: '2026-12-02T00:00:00.000Z' }),
  ])
  await act(() => FakeEventSource.last().send({ type: 'runs-changed' }))
  await vi.waitFor(() => expect(runsShown()).toEqual(['r-copied', 'r-old']))
  expect(server.asked).toEqual(['/api/runs', '/api/runs'])
  await act(() => FakeEventSource.last().send('{"type":"run-exploded"}'))
  expect(document.querySelector('[data-testid="feed-problem"]')!.textContent).toContain('run-exploded')
})

test('a failing server is shown as text on the page', async () => {
  stubServer({
    '/api/runs': new Response(
      JSON.stringify({ error: { code: 'NOT_FOUND', message: 'runs folder /x is gone' } }),
      {
        status: 500,
        statusText: 'Internal Server Error',
      },
    ),
  })
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelector('[data-testid="problem"]')).not.toBeNull())
  expect(document.querySelector('[data-testid="problem"]')!.textContent).toBe(
    '/api/runs answered 500 Internal Server Error: runs folder /x is gone',
  )
})

test('compare: two picked rows open the comparison, older as baseline; a row compares with its previous run', async () => {
  stubServer({
    '/api/runs': runs(three.map((r) => ({ ...r, targets: ['mock'], benchmarks: ['toy'], groups: [] }))),
  })
  await renderApp()
  const button = document.querySelector('[data-testid="compare-picked"]') as HTMLButtonElement
  expect(button.disabled).toBe(true)
  const pick = async (run: string) =>
    await act(() =>
      (document.querySelector(`[data-run="${run}"] [data-testid="run-pick"]`) as HTMLInputElement).click(),
    )
  await pick('r-new')
  await pick('r-old')
  expect(button.disabled).toBe(false)
  expect(
    document.querySelector('[data-run="r-new"] [data-testid="run-compare-previous"]')!.getAttribute('href'),
  ).toBe('/compare?baseline=r-mid&candidate=r-new')
  expect(document.querySelector('[data-run="r-old"] [data-testid="run-compare-previous"]')).toBeNull()
  await act(() => button.click())
  expect(location.pathname + location.search).toBe('/compare?baseline=r-old&candidate=r-new')
})

test('a progress event after the run ended does not bring it back as running', async () => {
  stubServer({ '/api/runs': runs([runEntry('r-done')]) })
  await renderApp()
  const late = runEntry('r-done', {
    state: 'live',
    status: 'running',
    trials: 3,
    passed: 1,
    headline: null,
    groups: [],
  })
  await act(() => FakeEventSource.last().send({ type: 'run-progress', run: late }))
  expect(document.querySelector('[data-run="r-done"]')!.getAttribute('data-state')).toBe('valid')
})

test('after the events stream reconnects, the list is asked for again: events sent while it was down are lost', async () => {
  const server = stubServer({ '/api/runs': runs([runEntry('r-old')]) })
  await renderApp()
  const source = FakeEventSource.last()
  await act(() => source.open())
  expect(server.asked).toEqual(['/api/runs'])
  await act(() => {
    source.readyState = FakeEventSource.CONNECTING
    source.onerror?.()
  })
  expect(document.querySelector('[data-testid="feed-status"]')!.textContent).toBe('live updates reconnecting')
  server.answers['/api/runs'] = runs([
    runEntry('r-old'),
    runEntry('r-missed', { startedAt: '2026-12-02T00:00:00.000Z' }),
  ])
  await act(() => source.open())
  await vi.waitFor(() => expect(runsShown()).toEqual(['r-missed', 'r-old']))
  expect(server.asked).toEqual(['/api/runs', '/api/runs'])
})
