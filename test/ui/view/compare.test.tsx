// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import type { CompareResponse } from '../../../src/view/api.ts'
import { App } from '../../../ui/view/app.tsx'
import { at, FakeEventSource, runEntry, stubServer } from './fixtures.ts'

beforeEach(() => FakeEventSource.install())
afterEach(() => {
  render(null, document.body)
  vi.unstubAllGlobals()
})

const RUNS = {
  runsDir: '/x',
  runs: [
    runEntry('r1', { startedAt: '2026-12-01T08:00:00.000Z' }),
    runEntry('r3', { startedAt: '2026-12-01T10:00:00.000Z' }),
    runEntry('r2', { startedAt: '2026-12-01T09:00:00.000Z' }),
    runEntry('other', {
      startedAt: '2026-12-01T11:00:00.000Z',
      state: 'invalid',
      headline: null,
      groups: [],
    }),
  ],
}

function comparison(baseline: string, candidate: string): CompareResponse {
  return {
    baseline,
    candidate,
    verdict: 'NO_GO',
    reason: 'the pass rate fell by more than the margin',
    pairedTasks: 40,
    delta: -0.125,
    deltaCi: { lower: -0.2, upper: -0.05 },
    pValue: 0.0123,
    test: 'mcnemar',
    broken: [{ taskKey: 'toy/gone', baseline: 1, candidate: 0 }],
    regressed: [
      { taskKey: 'toy/worse-b', baseline: 0.8, candidate: 0.2 },
      { taskKey: 'toy/worse-a', baseline: 0.6, candidate: 0.4 },
    ],
    improved: [{ taskKey: 'toy/better', baseline: 0.2, candidate: 0.9 }],
    baselineOnly: [],
    candidateOnly: ['toy/new'],
  }
}

test('compare without a query pairs the latest valid run with the one before it, and shows what got worse first', async () => {
  const server = stubServer({
    '/api/runs': RUNS,
    '/api/compare?baseline=r2&candidate=r3': comparison('r2', 'r3'),
  })
  at('/compare')
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelector('[data-testid="compare-result"]')).not.toBeNull())
  expect(server.asked).toContain('/api/compare?baseline=r2&candidate=r3')
  expect((document.querySelector('[data-testid="compare-baseline"]') as HTMLSelectElement).value).toBe('r2')
  expect((document.querySelector('[data-testid="compare-candidate"]') as HTMLSelectElement).value).toBe('r3')
  expect(document.querySelector('[data-testid="compare-verdict"]')!.textContent).toBe('NO GO')
  expect(document.querySelector('[data-testid="compare-delta"]')!.textContent).toBe(
    'Change −12.5 pp [−20.0, −5.0] pp, p = 0.012 (mcnemar, 40 paired tasks)',
  )
  const sections = [...document.querySelectorAll('[data-testid="compare-result"] > section')].map((s) =>
    s.getAttribute('data-testid'),
  )
  expect(sections.slice(0, 3)).toEqual(['compare-broken', 'compare-regressed', 'compare-improved'])
  const regressed = [
    ...document.querySelectorAll('[data-testid="compare-regressed"] [data-testid="compare-task"]'),
  ]
  expect(regressed.map((r) => r.getAttribute('data-task'))).toEqual(['toy/worse-b', 'toy/worse-a'])
  const all = [...document.querySelectorAll('[data-testid="compare-task"]')].map((r) =>
    r.getAttribute('data-task'),
  )
  expect(all).toEqual(['toy/gone', 'toy/worse-b', 'toy/worse-a', 'toy/better'])
  const links = [...regressed[0]!.querySelectorAll('a')].map((a) => a.getAttribute('href'))
  expect(links).toEqual(['/runs/r2/tasks/toy%2Fworse-b', '/runs/r3/tasks/toy%2Fworse-b'])
})

test('compare takes its pair from the query, and a picker change asks for the new pair', async () => {
  const server = stubServer({
    '/api/runs': RUNS,
    '/api/compare?baseline=r1&candidate=r3': comparison('r1', 'r3'),
    '/api/compare?baseline=r2&candidate=r3': comparison('r2', 'r3'),
  })
  at('/compare?baseline=r1&candidate=r3')
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelector('[data-testid="compare-result"]')).not.toBeNull())
  expect(server.asked).toContain('/api/compare?baseline=r1&candidate=r3')
  const options = [...document.querySelectorAll('[data-testid="compare-baseline"] option')].map((o) =>
    o.getAttribute('value'),
  )
  expect(options).toEqual(['r3', 'r2', 'r1'])
  const picker = document.querySelector('[data-testid="compare-baseline"]') as HTMLSelectElement
  picker.value = 'r2'
  picker.dispatchEvent(new Event('change', { bubbles: true }))
  await vi.waitFor(() => expect(server.asked).toContain('/api/compare?baseline=r2&candidate=r3'))
  expect(location.search).toBe('?baseline=r2&candidate=r3')
})

test('a comparison the server refuses is shown as its text', async () => {
  stubServer({
    '/api/runs': RUNS,
    '/api/compare?baseline=r1&candidate=r2': new Response('{"error":{"message":"r1 and r2 share no task"}}', {
      status: 400,
      statusText: 'Bad Request',
    }),
  })
  at('/compare?baseline=r1&candidate=r2')
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelector('[data-testid="problem"]')).not.toBeNull())
  expect(document.querySelector('[data-testid="problem"]')!.textContent).toBe(
    '/api/compare?baseline=r1&candidate=r2 answered 400 Bad Request: r1 and r2 share no task',
  )
})
