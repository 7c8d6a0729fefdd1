import { describe, expect, it } from 'vitest'
import { groupByTask, summarizeTrials, SummaryFold } from '../../src/scorers/index.ts'
import { randomTrials, settingsFor } from './random-run.ts'

describe('SummaryFold: the statistics a trial at a time', () => {
  it('writes the bytes summarizeTrials writes, for trials fed in bundle order', () => {
    for (let seed = 1; seed <= 120; seed++) {
      const trials = randomTrials(seed)
      const settings = settingsFor(seed)
      const fold = new SummaryFold(settings)
      for (const group of groupByTask(trials)) for (const trial of group.trials) fold.add(trial)
      expect(JSON.stringify(fold.finish()), `seed ${seed}`).toBe(
        JSON.stringify(summarizeTrials(trials, settings)),
      )
    }
  })

  it('refuses a trial out of bundle order, naming both trials', () => {
    const groups = groupByTask(randomTrials(11))
    expect(groups.length).toBeGreaterThan(1)
    const [first, second] = groups
    const fold = new SummaryFold(settingsFor(11))
    fold.add(second!.trials[0]!)
    expect(() => fold.add(first!.trials[0]!)).toThrow(/came after .*bundle order \(benchmark, task, trial\)/)
  })

  it('summarizes an empty run', () => {
    const summary = new SummaryFold(settingsFor(2)).finish()
    expect(JSON.stringify(summary)).toBe(JSON.stringify(summarizeTrials([], settingsFor(2))))
    expect([summary.n, summary.tasks.length, summary.evaluators.length]).toEqual([0, 0, 0])
  })
})
