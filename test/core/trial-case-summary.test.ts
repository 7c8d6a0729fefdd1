import { describe, expect, it } from 'vitest'
import { TrialRecord, trialCaseSummary } from '../../src/core/index.ts'
import { oneTrialRun } from '../scorers/one-trial-run.ts'

describe("a trial case's meta", () => {
  it('carries a summary of its record (what live reporters count), not the record itself', () => {
    const [record] = oneTrialRun(1)
    const full = TrialRecord.parse({ ...record, runId: 'r', reusedFrom: { runId: 'old', mode: 'rescored' } })
    const summary = trialCaseSummary(full)
    expect(summary).toEqual({
      runId: 'r',
      benchmark: full.benchmark.id,
      taskId: full.taskId,
      trial: full.trial,
      outcome: full.outcome,
      passed: full.passed,
      usage: { costUsd: full.usage.costUsd },
      scores: full.scores.map((s) => ({ evaluatorId: s.evaluatorId, costUsd: s.costUsd })),
      reusedFrom: { mode: 'rescored' },
    })
    // Plain JSON, a fraction of the record's size: it crosses to the main process with every case.
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary)
    expect(JSON.stringify(summary).length * 3).toBeLessThan(JSON.stringify(full).length)
  })
})
