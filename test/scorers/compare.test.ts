import { describe, expect, it } from 'vitest'
import { BaselineComparison, isAgentEvalOpsError, type TrialRecord } from '../../src/core/index.ts'
import { compareToBaseline, type ComparedRun } from '../../src/scorers/index.ts'
import { oneTrialRun } from './one-trial-run.ts'
import { scoredTrial } from '../support/trials.ts'

const BENCH = { id: 'toy', version: '1', datasetChecksum: 'a'.repeat(64) }

function run(runId: string, trials: TrialRecord[], benchmarks = [BENCH]): ComparedRun {
  return { runId, benchmarks, trials }
}

const range = (from: number, to: number) => new Set(Array.from({ length: to - from }, (_, i) => from + i))

describe('compareToBaseline: the acceptance cases over 50 tasks', () => {
  const baseline = run('base', oneTrialRun(50))

  it('gives NO_GO for 8 regressions: exact McNemar p = 2 · 0.5⁸ = 0.0078125', () => {
    const c = BaselineComparison.parse(compareToBaseline(baseline, run('cand', oneTrialRun(50, range(0, 8)))))
    expect(c.pairedTasks).toBe(50)
    expect(c.overall.test).toBe('mcnemar')
    expect(c.overall.mcnemar).toMatchObject({ regressions: 8, improvements: 0 })
    expect(c.overall.mcnemar!.pValue).toBeCloseTo(0.0078125, 12)
    expect(c.overall.delta).toBeCloseTo(-0.16, 12)
    expect(c.overall.verdict).toBe('NO_GO')
    expect(c.verdict).toBe('NO_GO')
    expect(c.overall.regressions.map((r) => r.taskId)).toEqual([
      't000',
      't001',
      't002',
      't003',
      't004',
      't005',
      't006',
      't007',
    ])
    expect(c.overall.reason).toMatch(/dropped 16\.0 pp/)
  })

  it('gives INCONCLUSIVE or GO for 1 regression, as the interval of the change says', () => {
    const candidate = run('cand', oneTrialRun(50, new Set([3])))
    // Deltas: 49 zeros and one −1. Mean −0.02; Σ(d − mean)² = 49·0.0004 + 0.98² = 0.98; sd = √(0.98/49) = √0.02;
    // se = √0.02/√50 = 0.02; t(0.975, 49) = 2.0096 (NIST table: 2.010) → interval [−0.0602, 0.0202].
    const lower = -0.02 - 2.009575 * 0.02
    const tight = compareToBaseline(baseline, candidate, { maxDrop: 0.05 })
    expect(tight.overall.mcnemar).toEqual({ regressions: 1, improvements: 0, pValue: 1 })
    expect(tight.overall.deltaCi!.lower).toBeCloseTo(lower, 5)
    expect(tight.overall.verdict).toBe(lower >= -0.05 ? 'GO' : 'INCONCLUSIVE')
    expect(tight.overall.verdict).toBe('INCONCLUSIVE')
    const loose = compareToBaseline(baseline, candidate, { maxDrop: 0.1 })
    expect(loose.overall.verdict).toBe('GO')
    expect(loose.verdict).toBe('GO')
  })

  it('gives GO for identical runs and reports a minimum detectable effect that is not zero', () => {
    const c = compareToBaseline(baseline, run('cand', oneTrialRun(50)))
    expect(c.verdict).toBe('GO')
    expect(c.overall.deltaCi).toEqual({ lower: 0, upper: 0 })
    // The floor sd = 1/√50 → MDE = (t(0.975,49) + t(0.8,49)) · (1/√50)/√50 = (2.0096 + 0.8489)/50 ≈ 0.0572.
    expect(c.overall.minimumDetectableEffect).toBeCloseTo((2.009575 + 0.848869) / 50, 4)
  })

  it('refuses runs of different benchmarks, and compares their shared tasks when forced', () => {
    const other = { id: 'other', version: '1', datasetChecksum: 'a'.repeat(64) }
    const candidate = run('cand', oneTrialRun(50, new Set(), 'other'), [other])
    let error: unknown
    try {
      compareToBaseline(baseline, candidate)
    } catch (e) {
      error = e
    }
    expect(isAgentEvalOpsError(error, 'COMPARE_MISMATCH')).toBe(true)
    expect((error as Error).message).toMatch(/benchmark other is not in the baseline \(it has toy\).*--force/)
    const forced = compareToBaseline(baseline, candidate, { force: true })
    expect(forced.settings.forced).toBe(true)
    expect(forced.pairedTasks).toBe(0)
    expect(forced.verdict).toBe('INSUFFICIENT_EVIDENCE')
  })

  it('refuses a baseline whose dataset checksum differs', () => {
    const changed = { ...BENCH, datasetChecksum: 'e'.repeat(64) }
    expect(() => compareToBaseline(baseline, run('cand', oneTrialRun(50), [changed]))).toThrow(
      /dataset checksum eeeeeeeeeeee differs from the baseline's aaaaaaaaaaaa/,
    )
  })
})

describe('compareToBaseline: evidence and tests', () => {
  it('says INSUFFICIENT_EVIDENCE below minPairs, and lists tasks on one side only', () => {
    const c = compareToBaseline(run('b', oneTrialRun(12)), run('c', oneTrialRun(6, range(0, 6))))
    expect(c.pairedTasks).toBe(6)
    expect(c.baselineOnly).toHaveLength(6)
    expect(c.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(c.overall.reason).toBe('6 paired tasks; at least 10 are needed')
  })

  it('uses the paired permutation test when tasks have several trials', () => {
    const many = (passing: (task: number, k: number) => boolean) =>
      Array.from({ length: 12 }, (_, t) =>
        Array.from({ length: 4 }, (_, k) =>
          scoredTrial({ taskId: `t${t}`, trial: k, passed: passing(t, k) }),
        ),
      ).flat()
    const c = compareToBaseline(
      run(
        'b',
        many(() => true),
      ),
      run(
        'c',
        many((t, k) => !(t < 6 && k < 2)),
      ),
    )
    // Six tasks drop from 4/4 to 2/4: deltas six × −0.5 and six × 0. Exact sign-flip test over the 2⁶ patterns
    // of the nonzero deltas: only the two all-same-sign patterns reach |mean| = 0.25 → p = 2/64.
    expect(c.overall.mcnemar).toBeNull()
    expect(c.overall.test).toBe('permutation')
    expect(c.overall.permutation).toEqual({ pValue: 2 / 64, exact: true })
    expect(c.overall.signTestP).toBeCloseTo(2 / 64, 12)
    expect(c.overall.delta).toBeCloseTo(-0.25, 12)
    expect(c.verdict).toBe('NO_GO')
  })

  it('gives NO_GO overall when an evaluator regresses though the pass rate holds', () => {
    const make = (quality: (i: number) => number) =>
      Array.from({ length: 30 }, (_, i) =>
        scoredTrial({ taskId: `t${i}`, passed: true, named: { quality: quality(i) } }),
      )
    const c = compareToBaseline(
      run(
        'b',
        make(() => 1),
      ),
      run(
        'c',
        make((i) => (i < 10 ? 0 : 1)),
      ),
    )
    expect(c.overall.verdict).toBe('GO')
    expect(c.evaluators.map((e) => [e.evaluatorId, e.verdict])).toEqual([['quality', 'NO_GO']])
    expect(c.verdict).toBe('NO_GO')
  })

  it('rejects bad settings with the field named', () => {
    expect(() => compareToBaseline(run('b', []), run('c', []), { maxDrop: 2 })).toThrow(/maxDrop/)
  })
})
