// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, expect, it } from 'vitest'
import { App } from '../../../ui/report/app.tsx'
import { fixtureReport, hostile, PAYLOAD, settle } from './report-fixture.ts'

afterEach(() => {
  render(null, document.body)
  location.hash = ''
})

it('shows a payload with <img onerror> and <script> as text wherever the run put it, and never as markup', async () => {
  const report = fixtureReport(hostile)
  render(<App report={report} />, document.body)
  const row = document.querySelector(
    '[data-testid="table-tasks"] [data-testid="row"][data-key="toy/task-2"]',
  )!
  row.querySelector<HTMLElement>('[data-testid="open-task"]')!.click()
  await settle()
  const trial = document.querySelector('[data-testid="trial"][data-trial="1"]')!
  expect(trial.hasAttribute('open')).toBe(true)
  expect(trial.querySelector('[data-testid="final-answer"]')!.textContent).toBe(PAYLOAD)
  expect(trial.querySelector('[data-testid="trial-error"]')!.textContent).toBe(PAYLOAD)
  expect(trial.querySelector('[data-testid="warnings"]')!.textContent).toBe(PAYLOAD)
  expect(trial.querySelector('[data-testid="explanation"]')!.textContent).toBe(PAYLOAD)
  const finding = trial.querySelector('[data-testid="finding"]')!
  expect(finding.getAttribute('data-type')).toBe(PAYLOAD)
  expect(finding.querySelector('.tag')!.textContent).toBe(PAYLOAD)
  expect(finding.querySelector('[data-testid="finding-message"]')!.textContent).toBe(PAYLOAD)
  expect(document.body.textContent).toContain(PAYLOAD)
  expect(document.querySelectorAll('img')).toHaveLength(0)
  expect(document.querySelectorAll('script')).toHaveLength(0)
})
