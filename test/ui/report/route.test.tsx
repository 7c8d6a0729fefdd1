// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from '../../../ui/report/app.tsx'
import { parseRoute, routeHash } from '../../../ui/report/route.ts'
import { RunHeader, safeHref } from '../../../ui/report/run-header.tsx'
import { fixtureReport, settle } from './report-fixture.ts'

afterEach(() => {
  render(null, document.body)
  location.hash = ''
})

const panel = () => document.querySelector<HTMLElement>('[data-testid="task-detail"]')!
const openTrials = () =>
  [...panel().querySelectorAll('[data-testid="trial"]')]
    .filter((t) => t.hasAttribute('open'))
    .map((t) => t.getAttribute('data-trial'))

describe('deep links', () => {
  it('round-trips a task key with the characters a URL fragment gives meaning to', () => {
    for (const task of ['toy/task-2', 'a b/c&d=e#f?g+h%i', 'naïve/😀']) {
      expect(parseRoute(routeHash({ task, trial: null }))).toEqual({ task, trial: null })
      expect(parseRoute(routeHash({ task, trial: 3 }))).toEqual({ task, trial: 3 })
    }
    expect(routeHash({ task: 'toy/task 2', trial: 1 })).toBe('#task=toy%2Ftask%202&trial=1')
    expect(parseRoute('#flaky')).toBeNull()
    expect(parseRoute('#s-3-4')).toBeNull()
    expect(parseRoute('')).toBeNull()
    expect(parseRoute('#task=toy%2Ftask-1&trial=x')).toEqual({ task: 'toy/task-1', trial: null })
  })

  it('opens the task, and the trial, the hash names when the page loads', () => {
    location.hash = routeHash({ task: 'toy/task-1', trial: 1 })
    render(<App report={fixtureReport()} />, document.body)
    expect(panel().hidden).toBe(false)
    expect(panel().getAttribute('data-task')).toBe('toy/task-1')
    expect(panel().querySelector('[data-testid="task-title"]')!.textContent).toBe('toy/task-1')
    expect(openTrials()).toEqual(['1'])
  })

  it('stays closed for a hash that names no task of the run', () => {
    location.hash = routeHash({ task: 'toy/no-such-task', trial: null })
    render(<App report={fixtureReport()} />, document.body)
    expect(panel().hidden).toBe(true)
  })

  it('follows the hash as it changes, and writes it as the user opens a task and a trial', async () => {
    render(<App report={fixtureReport()} />, document.body)
    expect(panel().hidden).toBe(true)

    location.hash = routeHash({ task: 'toy/task-0', trial: 1 })
    window.dispatchEvent(new HashChangeEvent('hashchange'))
    await settle()
    expect(panel().getAttribute('data-task')).toBe('toy/task-0')
    expect(openTrials()).toEqual(['1'])

    const row = document.querySelector(
      '[data-testid="table-tasks"] [data-testid="row"][data-key="toy/task-2"]',
    )!
    row.querySelector<HTMLElement>('[data-testid="open-task"]')!.click()
    await settle()
    expect(location.hash).toBe(routeHash({ task: 'toy/task-2', trial: null }))
    expect(panel().getAttribute('data-task')).toBe('toy/task-2')
    // The failing trial opens first, on the page's own account: the hash still names the task only.
    expect(openTrials()).toEqual(['1'])

    const other = panel().querySelector<HTMLDetailsElement>('[data-testid="trial"][data-trial="0"]')!
    other.open = true
    other.dispatchEvent(new Event('toggle'))
    await settle()
    expect(location.hash).toBe(routeHash({ task: 'toy/task-2', trial: 0 }))
    expect(other.querySelector('.trial-body')).not.toBeNull()

    panel().querySelector<HTMLElement>('[data-testid="close-task"]')!.click()
    await settle()
    expect(panel().hidden).toBe(true)
    expect(parseRoute(location.hash)).toBeNull()
  })
})

describe('the header', () => {
  it('links back to the runs list when the page is given links, and not otherwise', () => {
    const report = fixtureReport(undefined, undefined, { links: { home: '/', run: '/runs/r-1' } })
    expect(report.data.links).toEqual({ home: '/', run: '/runs/r-1' })
    render(<RunHeader data={report.data} />, document.body)
    const home = document.querySelector('[data-testid="home-link"]')!
    expect(home.getAttribute('href')).toBe('/')
    expect(home.textContent).toBe('← all runs')
    render(<RunHeader data={fixtureReport().data} />, document.body)
    expect(document.querySelector('[data-testid="home-link"]')).toBeNull()
  })

  it('never links to a script URL', () => {
    expect(safeHref('javascript:alert(1)')).toBeNull()
    expect(safeHref(' JavaScript:alert(1)')).toBeNull()
    expect(safeHref('java\tscript:alert(1)')).toBeNull()
    expect(safeHref('\u0001javascript:alert(1)')).toBeNull()
    expect(safeHref('data:text/html,x')).toBeNull()
    expect(safeHref('http://127.0.0.1:4173/')).toBe('http://127.0.0.1:4173/')
    expect(safeHref('/runs/x')).toBe('/runs/x')
  })
})
