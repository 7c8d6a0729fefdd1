import type { TraceEvent, TrialRecord } from '../../../src/core/index.ts'
import { renderHtmlReport, type HtmlReportInput } from '../../../src/reports/html/index.ts'
import { readReport, type Report } from '../../../ui/report/read-report.ts'
import { makeEvents, makeMetadata, makeSummary, makeTrials } from '../../bundles/fixtures.ts'

/** A payload that would run if any string of the run became markup. */
export const PAYLOAD = '<img src=x onerror=alert(1)><script>alert(2)</script>'

/**
 * The fixture run (3 tasks × 2 trials) as report.html carries it, read back the way the page reads it: its data
 * block and rows blocks, from a document parsed from the rendered file (the app's own script left out: the test
 * draws the app itself).
 */
export function fixtureReport(
  edit: (trials: TrialRecord[]) => TrialRecord[] = (t) => t,
  events: (trial: TrialRecord) => TraceEvent[] = makeEvents,
  options: Partial<HtmlReportInput> = {},
): Report {
  const trials = edit(makeTrials())
  const html = renderHtmlReport({
    metadata: makeMetadata(trials),
    trials,
    summary: makeSummary(trials),
    events: trials.flatMap(events),
    ...options,
  })
  const blocks = html.match(/<script type="application\/json"[^>]*>[\s\S]*?<\/script>/g) ?? []
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${blocks.join('\n')}</body>`, 'text/html')
  return readReport(doc)
}

/** The fixture's failing trial (toy/task-2, trial 1) with the payload in every text an agent or evaluator wrote. */
export function hostile(trials: TrialRecord[]): TrialRecord[] {
  return trials.map((t) =>
    t.taskId === 'task-2' && t.trial === 1
      ? {
          ...t,
          result: { ...t.result!, finalAnswer: PAYLOAD, error: PAYLOAD },
          warnings: [PAYLOAD],
          scores: t.scores.map((s) => ({
            ...s,
            explanation: PAYLOAD,
            findings: [{ type: PAYLOAD, message: PAYLOAD, citations: [2] }],
          })),
        }
      : t,
  )
}

/** Waits out the app's deferred renders and animation frames: up to `rounds` turns of the event loop. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))
    await new Promise<void>((resolve) => setTimeout(resolve, 0))
  }
}
