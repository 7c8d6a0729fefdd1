import { describe, expect, it } from 'vitest'
import { FinishedTrials, MAX_EXPLAINED } from '../../plugin/finished-trials.ts'
import { explainTrial } from '../../plugin/gate.ts'
import { compareToBaseline } from '../../src/scorers/index.ts'
import { oneTrialRun } from '../scorers/one-trial-run.ts'

const BENCH = { id: 'toy', version: '1', datasetChecksum: 'a'.repeat(64) }
const range = (from: number, to: number) => new Set(Array.from({ length: to - from }, (_, i) => from + i))

describe('FinishedTrials: what the gates after a benchmark keep of its trials', () => {
  it('counts every trial and explains the first failing ones only, saying how many more there were', () => {
    const records = oneTrialRun(200, range(0, 150))
    const finished = new FinishedTrials({ compared: false })
    for (const r of records) finished.add(r)
    expect(finished.count).toBe(200)
    expect(finished.passed).toBe(50)
    expect(finished.passRate).toBe(0.25)
    expect(finished.explained).toHaveLength(MAX_EXPLAINED)
    expect(finished.explained).toEqual(records.slice(0, MAX_EXPLAINED).map(explainTrial))
    expect(finished.failures().split('\n').at(-1)).toBe(
      `… and ${150 - MAX_EXPLAINED} more trials that did not pass`,
    )
    // No baseline gate: nothing kept per trial.
    expect(finished.compared).toBeUndefined()
  })

  it('keeps the records only for a baseline gate, which compares them as they are', () => {
    const baseline = { runId: 'base', benchmarks: [BENCH], trials: oneTrialRun(50) }
    const records = oneTrialRun(50, range(0, 8))
    const finished = new FinishedTrials({ compared: true })
    for (const r of records) finished.add(r)
    expect(finished.compared).toEqual(records)
    const fromKept = compareToBaseline(baseline, {
      runId: 'cand',
      benchmarks: [BENCH],
      trials: finished.compared!,
    })
    expect(fromKept.verdict).toBe('NO_GO')
  })

  it('holds a failing trial as a few lines of text, not its record', () => {
    const finished = new FinishedTrials({ compared: false })
    const [record] = oneTrialRun(1, new Set([0]))
    finished.add(record!)
    expect(finished.explained).toEqual([explainTrial(record!)])
    expect(typeof finished.explained[0]).toBe('string')
  })
})
