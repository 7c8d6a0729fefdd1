// @vitest-environment happy-dom
import { render } from 'preact'
import { act } from 'preact/test-utils'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { taskUrl, trialUrl } from '../../../src/view/api.ts'
import { App } from '../../../ui/view/app.tsx'
import { routeOf } from '../../../ui/view/router.ts'
import { at, FakeEventSource, runEntry, stubServer } from './fixtures.ts'

beforeEach(() => {
  FakeEventSource.install()
  stubServer({
    '/api/runs': { runsDir: '/x', runs: [runEntry('r 1/a'), runEntry('r2')] },
    '/api/trends': { series: [] },
  })
})
afterEach(() => {
  render(null, document.body)
  vi.unstubAllGlobals()
})

function route(url: string) {
  const u = new URL(url, 'http://127.0.0.1')
  return routeOf(u.pathname, u.search)
}

test('each path maps to its page, with the query it carries', () => {
  expect(route('/')).toEqual({ page: 'runs' })
  expect(route('/trends')).toEqual({ page: 'trends', benchmark: null, target: null })
  expect(route('/history?benchmark=toy&target=mock')).toEqual({
    page: 'history',
    benchmark: 'toy',
    target: 'mock',
  })
  expect(route('/compare?baseline=a&candidate=b')).toEqual({ page: 'compare', baseline: 'a', candidate: 'b' })
  expect(route('/runs/r%201%2Fa')).toEqual({ page: 'run', run: 'r 1/a' })
  expect(route('/runs/r2/report')).toEqual({ page: 'outside' })
  expect(route('/api/runs')).toEqual({ page: 'outside' })
  expect(route('/nowhere')).toEqual({ page: 'not-found', path: '/nowhere' })
  expect(route('/runs/%E0%A4%A')).toEqual({ page: 'not-found', path: '/runs/%E0%A4%A' })
  expect(route('/runs/r2/tasks/t/trials/x')).toEqual({ page: 'not-found', path: '/runs/r2/tasks/t/trials/x' })
})

test('task and trial URLs (as a CI log carries them) map to the run report opened at that task and trial', () => {
  expect(route(taskUrl('', 'r 1/a', 'toy/broken & co'))).toEqual({
    page: 'report',
    href: '/runs/r%201%2Fa/report#task=toy%2Fbroken%20%26%20co',
  })
  expect(
    route(trialUrl('http://127.0.0.1:4173/', 'r2', 'toy/a', 3).replace('http://127.0.0.1:4173', '')),
  ).toEqual({
    page: 'report',
    href: '/runs/r2/report#task=toy%2Fa&trial=3',
  })
  const hash = new URLSearchParams('task=toy%2Fbroken%20%26%20co&trial=3')
  expect([hash.get('task'), hash.get('trial')]).toEqual(['toy/broken & co', '3'])
})

test('the app renders the page of its path', async () => {
  const pages: [string, string][] = [
    ['/', 'page-runs'],
    ['/trends', 'page-trends'],
    ['/history', 'page-history'],
    ['/compare', 'page-compare'],
    ['/runs/r2', 'page-run'],
    ['/nowhere', 'not-found'],
  ]
  for (const [path, testid] of pages) {
    at(path)
    render(<App />, document.body)
    expect(document.querySelector(`[data-testid="${testid}"]`), path).not.toBeNull()
    render(null, document.body)
  }
})

test('the run page shows its facts and links to its report; a live run says the report comes when it ends', async () => {
  at('/runs/r%201%2Fa')
  render(<App />, document.body)
  await vi.waitFor(() => expect(document.querySelector('[data-testid="run-facts"]')).not.toBeNull())
  expect(document.querySelector('[data-testid="run-report-link"]')!.getAttribute('href')).toBe(
    '/runs/r%201%2Fa/report',
  )
  const facts = [...document.querySelectorAll('[data-testid="run-facts"] dd')].map((d) => d.textContent)
  expect(facts).toContain('72.0 % [61.2, 81.0]')
  await act(() =>
    FakeEventSource.last().send({
      type: 'run-started',
      run: runEntry('r3', {
        state: 'live',
        status: 'running',
        trials: 2,
        passed: 1,
        headline: null,
        groups: [],
      }),
    }),
  )
  await act(() => {
    history.pushState(null, '', '/runs/r3')
    window.dispatchEvent(new PopStateEvent('popstate'))
  })
  expect(document.querySelector('[data-testid="page-run"]')!.getAttribute('data-run')).toBe('r3')
  expect(document.querySelector('[data-testid="run-report-link"]')).toBeNull()
  expect(document.querySelector('[data-testid="live-counts"]')!.textContent).toContain(
    '1 of 2 trials passed so far',
  )
})

test('opening a task or trial URL sends the window to the run report at it, replacing the alias', async () => {
  const leave = vi.fn()
  at('/runs/r2/tasks/toy%2Fa/trials/2')
  render(<App leave={leave} />, document.body)
  await vi.waitFor(() => expect(leave).toHaveBeenCalledWith('/runs/r2/report#task=toy%2Fa&trial=2', true))
  expect(document.querySelector('[data-testid="leaving"] a')!.getAttribute('href')).toBe(
    '/runs/r2/report#task=toy%2Fa&trial=2',
  )
})

test('a click on an app link moves by the History API; on a task link, to the report; the report link is left to the browser', async () => {
  const leave = vi.fn()
  at('/')
  render(<App leave={leave} />, document.body)
  await vi.waitFor(() => expect(document.querySelector('[data-testid="run-link"]')).not.toBeNull())
  const click = (a: Element) => {
    const event = new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 })
    a.dispatchEvent(event)
    return event.defaultPrevented
  }
  const runLink = document.querySelector('[data-run="r2"] [data-testid="run-link"]')!
  let prevented = false
  await act(() => {
    prevented = click(runLink)
  })
  expect(prevented).toBe(true)
  expect(location.pathname).toBe('/runs/r2')
  expect(document.querySelector('[data-testid="page-run"]')).not.toBeNull()
  await act(() => {
    prevented = click(document.querySelector('[data-testid="run-report-link"]')!)
  })
  expect(prevented).toBe(false)
  const task = document.createElement('a')
  task.setAttribute('href', taskUrl('', 'r2', 'toy/a'))
  document.querySelector('[data-testid="page-run"]')!.append(task)
  await act(() => {
    prevented = click(task)
  })
  expect(prevented).toBe(true)
  expect(leave).toHaveBeenCalledWith('/runs/r2/report#task=toy%2Fa', false)
})
