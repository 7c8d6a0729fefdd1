import { describe, expect, it } from 'vitest'
import { aggregateVerdicts } from '../../../src/evaluators/llm-judge/aggregate.ts'

const v = (score: number, passed: boolean) => ({ score, passed })

describe('aggregateVerdicts', () => {
  it('majority: more than half must pass; a tie fails', () => {
    expect(aggregateVerdicts([v(1, true), v(0.9, true), v(0.2, false)], 'majority', 0.5)).toMatchObject({
      passed: true,
      passes: 2,
      k: 3,
      confidence: 2 / 3,
    })
    expect(aggregateVerdicts([v(1, true), v(0, false)], 'majority', 0.5)).toMatchObject({
      passed: false,
      confidence: 0.5,
    })
  })

  it('all: one failing verdict fails the lot', () => {
    const agg = aggregateVerdicts([v(1, true), v(1, true), v(0.4, false)], 'all', 0.5)
    expect(agg).toMatchObject({ passed: false, passes: 2, confidence: 1 / 3 })
    expect(aggregateVerdicts([v(1, true), v(0.7, true)], 'all', 0.5).passed).toBe(true)
  })

  it('mean: the mean score against the threshold, whatever the verdicts say of themselves', () => {
    const verdicts = [v(0.9, false), v(0.6, false), v(0.3, false)]
    const agg = aggregateVerdicts(verdicts, 'mean', 0.5)
    expect(agg.score).toBeCloseTo(0.6, 12)
    expect(agg).toMatchObject({ passed: true, passes: 2, confidence: 2 / 3 })
    expect(aggregateVerdicts(verdicts, 'mean', 0.7).passed).toBe(false)
    // A mean that floating point puts a hair under the threshold still meets it.
    expect(
      aggregateVerdicts([v(0.3, true), v(0.3, true), v(0.3, true), v(0.1, true)], 'mean', 0.25).passed,
    ).toBe(true)
  })

  it('the score is the mean of the scores under every rule; no verdicts never pass', () => {
    for (const rule of ['majority', 'all', 'mean'] as const) {
      expect(aggregateVerdicts([v(1, true), v(0, false)], rule, 0.5).score).toBe(0.5)
    }
    expect(aggregateVerdicts([], 'mean', 0)).toEqual({
      score: 0,
      passed: false,
      confidence: 0,
      passes: 0,
      k: 0,
    })
  })
})
