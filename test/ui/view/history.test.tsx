// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, expect, test, vi } from 'vitest'
import type { TaskHistoryResponse, TaskHistoryRow, TrendsResponse } from '../../../src/view/api.ts'
import { App } from '../../../ui/view/app.tsx'
import { HistoryGrid } from '../../../ui/view/pages/history.tsx'
import { at, FakeEventSource, stubServer } from './fixtures.ts'

afterEach(() => {
  render(null, document.body)
  vi.unstubAllGlobals()
})

const RUNS = ['r1', 'r2', 'r3', 'r4']

function row(
  taskKey: string,
  kind: TaskHistoryRow['kind'],
  cells: TaskHistoryRow['cells'],
  over: Partial<TaskHistoryRow> = {},
): TaskHistoryRow {
  return { taskKey, taskId: taskKey.split('/')[1]!, kind, cells, flips: 0, direction: null, ...over }
}

const pass = { trials: 3, passed: 3 }
const fail = { trials: 3, passed: 0 }
const split = { trials: 3, passed: 1 }

/** Deliberately out of order: the page, not the server, decides how kinds are grouped and ordered. */
const HISTORY: TaskHistoryResponse = {
  benchmark: 'toy',
  target: 'mock',
  runs: RUNS,
  tasks: [
    row('toy/zeta', 'stable', [pass, pass, pass, pass]),
    row('toy/flip', 'flipped', [pass, pass, pass, fail], { flips: 1, direction: 'regressed' }),
    row('toy/alpha', 'stable', [pass, null, pass, pass]),
    row('toy/wobbly', 'flaky', [pass, fail, split, pass], { flips: 3 }),
    row('toy/never', 'never-passed', [fail, fail, fail, fail]),
  ],
}

test('history groups tasks by kind: never-passed, flaky, flipped, then stable, by task key within a kind', () => {
  render(<HistoryGrid history={HISTORY} />, document.body)
  const kinds = [...document.querySelectorAll('[data-testid^="history-kind-"]')].map((s) =>
    s.getAttribute('data-testid'),
  )
  expect(kinds).toEqual([
    'history-kind-never-passed',
    'history-kind-flaky',
    'history-kind-flipped',
    'history-kind-stable',
  ])
  const rows = [...document.querySelectorAll('[data-testid="history-task"]')].map((r) => [
    r.getAttribute('data-task'),
    r.getAttribute('data-kind'),
  ])
  expect(rows).toEqual([
    ['toy/never', 'never-passed'],
    ['toy/wobbly', 'flaky'],
    ['toy/flip', 'flipped'],
    ['toy/alpha', 'stable'],
    ['toy/zeta', 'stable'],
  ])
  const stable = document.querySelector('[data-testid="history-kind-stable"]')!
  expect(stable.querySelector('[data-testid="history-task"]')!.closest('section')).toBe(stable)
  expect(
    document.querySelector('[data-task="toy/flip"] [data-testid="history-direction"]')!.textContent,
  ).toBe('regressed')
})

test('each cell is coloured by outcome with its counts as title; an absent run is marked absent', () => {
  render(<HistoryGrid history={HISTORY} />, document.body)
  const cells = (task: string) => [...document.querySelectorAll(`[data-task="${task}"] td`)]
  expect(cells('toy/wobbly').map((c) => c.getAttribute('data-outcome'))).toEqual([
    'pass',
    'fail',
    'split',
    'pass',
  ])
  expect(cells('toy/wobbly')[2]!.getAttribute('title')).toBe('r3: 1/3 passed')
  expect(cells('toy/alpha')[1]!.getAttribute('data-outcome')).toBe('absent')
  expect(cells('toy/alpha')[1]!.getAttribute('title')).toBe('r2: not in this run')
  expect(cells('toy/wobbly')[0]!.querySelector('a')!.getAttribute('href')).toBe('/runs/r1/tasks/toy%2Fwobbly')
})

test('a flaky task lists its evidence: the runs where it passed, split and failed', () => {
  render(<HistoryGrid history={HISTORY} />, document.body)
  const lines = [
    ...document.querySelectorAll('[data-task="toy/wobbly"] [data-testid="history-evidence"] li'),
  ].map((li) => li.textContent)
  expect(lines).toEqual(['passed in (2): r1, r4', 'split in (1): r3', 'failed in (1): r2'])
  expect(document.querySelectorAll('[data-testid="history-evidence"]')).toHaveLength(1)
})

test('the history page asks for the series in its query and offers the other series', async () => {
  FakeEventSource.install()
  const trends: TrendsResponse = {
    series: [
      { benchmark: 'toy', target: 'mock', points: [] },
      { benchmark: 'toy', target: 'claude', points: [] },
    ],
  }
  const server = stubServer({ '/api/history?benchmark=toy&target=mock': HISTORY, '/api/trends': trends })
  at('/history?benchmark=toy&target=mock')
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelectorAll('[data-testid="history-task"]')).toHaveLength(5))
  expect(server.asked).toContain('/api/history?benchmark=toy&target=mock')
  await vi.waitFor(() =>
    expect(document.querySelectorAll('[data-testid="history-series"] option')).toHaveLength(2),
  )
})
