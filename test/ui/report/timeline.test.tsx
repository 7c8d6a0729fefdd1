// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { TraceEvent, TrialRecord } from '../../../src/core/index.ts'
import { STEP_CHUNK } from '../../../ui/report/timeline.tsx'
import { TrialBody } from '../../../ui/report/trial-body.tsx'
import { eventBase, makeEvents } from '../../bundles/fixtures.ts'
import { fixtureReport, settle } from './report-fixture.ts'

afterEach(() => {
  render(null, document.body)
  vi.restoreAllMocks()
})

const STEPS = STEP_CHUNK + 100
const CITED = STEPS - 3

/** toy/task-2 trial 1 with a long trace, its finding citing a step beyond the first chunk drawn, and step 3. */
function longTrial(trials: TrialRecord[]): TrialRecord[] {
  return trials.map((t) =>
    t.taskId === 'task-2' && t.trial === 1
      ? {
          ...t,
          eventCount: STEPS,
          scores: t.scores.map((s) => ({
            ...s,
            citations: [1],
            findings: [{ type: 'wrong_answer', message: 'off by one', citations: [3, CITED] }],
          })),
        }
      : t,
  )
}

function longEvents(trial: TrialRecord): TraceEvent[] {
  if (!(trial.taskId === 'task-2' && trial.trial === 1)) return makeEvents(trial)
  return Array.from({ length: STEPS }, (_, step) => ({
    ...eventBase(trial, step),
    kind: 'agent.observation' as const,
    payload: { text: `observation ${step}` },
  }))
}

function drawTrial() {
  const report = fixtureReport(longTrial, longEvents)
  const ti = report.trials.findIndex((t) => t.task === 'toy/task-2' && t.trial === 1)
  render(<TrialBody ti={ti} trial={report.trials[ti]!} kinds={report.data.kinds} />, document.body)
  return ti
}

const step = (n: number) => document.querySelector<HTMLElement>(`[data-testid="step"][data-step="${n}"]`)
const citation = (n: number) =>
  document.querySelector<HTMLElement>(`[data-testid="finding"] [data-testid="citation"][data-step="${n}"]`)!

describe('the trial timeline', () => {
  it('draws the first chunk of a long trace and names who cited each step', () => {
    drawTrial()
    expect(document.querySelector('[data-testid="timeline"]')!.getAttribute('data-steps')).toBe(String(STEPS))
    expect(document.querySelectorAll('[data-testid="step"]')).toHaveLength(STEP_CHUNK)
    expect(step(CITED)).toBeNull()
    expect(document.querySelector('[data-testid="more-steps"]')!.textContent).toBe('show 100 more steps')
    expect(step(3)!.querySelector('[data-testid="cited-by"]')!.textContent).toBe(
      'cited by exact-match: wrong_answer',
    )
    expect(step(1)!.querySelector('[data-testid="cited-by"]')!.textContent).toBe('cited by exact-match')
  })

  it('follows a finding to its step: draws it when not yet drawn, scrolls there, focuses and highlights it', async () => {
    const scrolled: string[] = []
    vi.spyOn(HTMLElement.prototype, 'scrollIntoView').mockImplementation(function (this: HTMLElement) {
      scrolled.push(this.getAttribute('data-step') ?? '')
    })
    const ti = drawTrial()
    const link = citation(CITED)
    expect(link.getAttribute('href')).toBe(`#s-${ti}-${CITED}`)
    link.click()
    await settle()
    const row = step(CITED)!
    expect(row).not.toBeNull()
    expect(row.classList.contains('hl')).toBe(true)
    expect(document.activeElement).toBe(row)
    expect(scrolled).toEqual([String(CITED)])
    // The link is followed by the page, not by the browser: the address stays.
    expect(location.hash).toBe('')

    citation(3).click()
    await settle()
    expect(step(3)!.classList.contains('hl')).toBe(true)
    expect(step(CITED)!.classList.contains('hl')).toBe(false)
    expect(document.querySelectorAll('tr.hl')).toHaveLength(1)
    expect(scrolled).toEqual([String(CITED), '3'])
  })

  it('strikes through a citation of a step the trace lacks, and goes nowhere with it', async () => {
    const report = fixtureReport(
      (trials) =>
        longTrial(trials).map((t) =>
          t.taskId === 'task-2' && t.trial === 1
            ? {
                ...t,
                scores: t.scores.map((s) => ({
                  ...s,
                  findings: [{ type: 'x', message: 'm', citations: [99_999] }],
                })),
              }
            : t,
        ),
      longEvents,
    )
    const ti = report.trials.findIndex((t) => t.task === 'toy/task-2' && t.trial === 1)
    render(<TrialBody ti={ti} trial={report.trials[ti]!} kinds={report.data.kinds} />, document.body)
    const link = citation(99_999)
    expect(link.className).toBe('cite missing')
    link.click()
    await settle()
    expect(document.querySelectorAll('tr.hl')).toHaveLength(0)
  })
})
