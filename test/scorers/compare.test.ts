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

  it('gives no GO for 50 identical pairs, and reports a minimum detectable effect that is not zero', () => {
    const c = compareToBaseline(baseline, run('cand', oneTrialRun(50)))
    // The interval collapses to [0, 0], but 0 regressions in 50 leave up to 5.8% of tasks regressing
    // (1 − 0.05^(1/50) = 0.0581550791169723, scipy beta.ppf(0.95, 1, 50)): more than maxDrop 5 pp.
    expect(c.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(c.overall.regressionRateUpper).toBeCloseTo(0.05815507911697225, 12)
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
})

describe('compareToBaseline: a dataset that changed', () => {
  const changed = { ...BENCH, datasetChecksum: 'e'.repeat(64) }
  const withChecksum = (trials: TrialRecord[], ids: ReadonlySet<string>, checksum: string) =>
    trials.map((t) => (ids.has(t.taskId) ? { ...t, taskChecksum: checksum } : t))

  it('compares the tasks both runs share when a task was added, and says how many were left out', () => {
    const before = run('base', oneTrialRun(60))
    // One task more, and the dataset checksum changed with it; the 60 shared tasks are unchanged.
    const c = compareToBaseline(before, run('cand', oneTrialRun(61), [changed]))
    expect(c.pairedTasks).toBe(60)
    expect(c.candidateOnly).toEqual(['toy/t060'])
    expect(c.baselineOnly).toEqual([])
    expect(c.changedDatasets).toEqual(['toy'])
    expect(c.verdict).toBe('GO')
    const fewer = compareToBaseline(before, run('cand', oneTrialRun(59), [changed]))
    expect(fewer.baselineOnly).toEqual(['toy/t059'])
  })

  it('refuses when a shared task changed content, naming it, and when no task is shared', () => {
    const edited = withChecksum(oneTrialRun(50), new Set(['t003', 't007']), 'c'.repeat(64))
    let error: unknown
    try {
      compareToBaseline(baseline(), run('cand', edited, [changed]))
    } catch (e) {
      error = e
    }
    expect(isAgentEvalOpsError(error, 'COMPARE_MISMATCH')).toBe(true)
    expect((error as Error).message).toMatch(
      /2 of the 50 shared tasks changed content \(their task checksums differ\): toy\/t003, toy\/t007/,
    )
    expect(compareToBaseline(baseline(), run('cand', edited, [changed]), { force: true }).pairedTasks).toBe(
      50,
    )
    const disjoint = oneTrialRun(50).map((t) => ({ ...t, taskId: `new-${t.taskId}` }))
    expect(() => compareToBaseline(baseline(), run('cand', disjoint, [changed]))).toThrow(
      /the runs share no task/,
    )
  })

  function baseline(): ComparedRun {
    return run('base', oneTrialRun(50))
  }
})

describe('compareToBaseline: broken tasks', () => {
  // 8 tasks × 3 trials, the suite: tasks listed in `broken` fail every trial, `flaky` ones one trial.
  const suite = (broken: ReadonlySet<number>, flaky: ReadonlySet<number> = new Set()) =>
    Array.from({ length: 8 }, (_, t) =>
      Array.from({ length: 3 }, (_, k) =>
        scoredTrial({ taskId: `t${t}`, trial: k, passed: !broken.has(t) && !(flaky.has(t) && k === 0) }),
      ),
    ).flat()

  it('lists the tasks that always passed before and never pass now, though the verdict is no NO_GO', () => {
    const c = compareToBaseline(run('b', suite(new Set())), run('c', suite(new Set([2, 5]), new Set([6]))))
    expect(c.verdict).toBe('INSUFFICIENT_EVIDENCE')
    // t6 dropped to 2/3: a regression, not broken.
    expect(c.broken).toEqual([
      { benchmarkId: 'toy', taskId: 't2', baselineTrials: 3, candidateTrials: 3 },
      { benchmarkId: 'toy', taskId: 't5', baselineTrials: 3, candidateTrials: 3 },
    ])
    expect(c.overall.regressions.map((r) => r.taskId)).toEqual(['t2', 't5', 't6'])
    // A task that was flaky in the baseline is not broken when it fails every trial now.
    const fromFlaky = compareToBaseline(
      run('b', suite(new Set(), new Set([2]))),
      run('c', suite(new Set([2]))),
    )
    expect(fromFlaky.broken).toEqual([])
  })

  it('gives NO_GO on any broken task with failOnBroken, whatever the p-value', () => {
    const c = compareToBaseline(run('b', suite(new Set())), run('c', suite(new Set([2, 5]))), {
      failOnBroken: true,
    })
    expect(c.settings.failOnBroken).toBe(true)
    expect(c.overall.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(c.verdict).toBe('NO_GO')
    expect(BaselineComparison.parse(c).broken).toHaveLength(2)
    const clean = compareToBaseline(run('b', suite(new Set())), run('c', suite(new Set(), new Set([3]))), {
      failOnBroken: true,
    })
    expect(clean.broken).toEqual([])
    expect(clean.verdict).not.toBe('NO_GO')
  })

  it('reads a comparison written before broken tasks existed', () => {
    const c = compareToBaseline(run('b', suite(new Set())), run('c', suite(new Set())))
    const { broken, changedDatasets, ...old } = c
    const { failOnBroken, ...oldSettings } = c.settings
    void [broken, changedDatasets, failOnBroken]
    const parsed = BaselineComparison.parse({
      ...old,
      settings: oldSettings,
      overall: { ...c.overall, regressionRateUpper: undefined },
    })
    expect(parsed.broken).toEqual([])
    expect(parsed.settings.failOnBroken).toBe(false)
    expect(parsed.overall.regressionRateUpper).toBeNull()
  })
})

describe('compareToBaseline: the exact bound on the share of tasks that regress', () => {
  it('says INSUFFICIENT_EVIDENCE, not GO, for ten pairs without a discordant pair, with the bound', () => {
    const c = compareToBaseline(run('b', oneTrialRun(10)), run('c', oneTrialRun(10)))
    expect(c.overall.deltaCi).toEqual({ lower: 0, upper: 0 })
    // 1 − 0.05^(1/10) = 0.2588655508930522 (scipy beta.ppf(0.95, 1, 10); exact-fraction bisection agrees).
    expect(c.overall.regressionRateUpper).toBeCloseTo(0.2588655508930522, 12)
    expect(c.overall.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(c.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(c.overall.reason).toBe(
      'change +0.0 pp (0 regressions, 0 improvements), but up to 25.9% of tasks could regress (exact one-sided ' +
        '95% Clopper–Pearson bound over 10 pairs), more than the 5.0 pp allowed; 59 paired tasks without a ' +
        'regression would rule it out',
    )
  })

  it('gives GO once the bound is within maxDrop: 59 clean pairs (58 are not enough)', () => {
    // 1 − 0.05^(1/59) = 0.04950760988822693 ≤ 0.05 < 1 − 0.05^(1/58) = 0.050339338330420105 (scipy beta.ppf).
    const at59 = compareToBaseline(run('b', oneTrialRun(59)), run('c', oneTrialRun(59)))
    expect(at59.overall.regressionRateUpper).toBeCloseTo(0.04950760988822693, 12)
    expect(at59.verdict).toBe('GO')
    expect(at59.overall.reason).toMatch(/and up to 5\.0% of tasks could regress/)
    const at58 = compareToBaseline(run('b', oneTrialRun(58)), run('c', oneTrialRun(58)))
    expect(at58.verdict).toBe('INSUFFICIENT_EVIDENCE')
    // A looser maxDrop needs fewer pairs: 1 − 0.05^(1/10) = 0.259 ≤ 0.3.
    expect(
      compareToBaseline(run('b', oneTrialRun(10)), run('c', oneTrialRun(10)), { maxDrop: 0.3 }).verdict,
    ).toBe('GO')
  })

  it('nets the improvements seen against the bound', () => {
    // 20 pairs, 0 regressions, 9 improvements: bound 0.139 (scipy beta.ppf(0.95, 1, 20)) less 9/20 ≤ 0.05.
    const c = compareToBaseline(run('b', oneTrialRun(20, range(0, 9))), run('c', oneTrialRun(20)))
    expect(c.overall.regressionRateUpper).toBeCloseTo(0.13910834066826516, 12)
    expect(c.verdict).toBe('GO')
  })

  it('applies to tasks of several trials too', () => {
    const many = Array.from({ length: 12 }, (_, t) =>
      Array.from({ length: 3 }, (_, k) => scoredTrial({ taskId: `t${t}`, trial: k, passed: true })),
    ).flat()
    const c = compareToBaseline(run('b', many), run('c', many))
    expect(c.overall.test).toBe('permutation')
    // 1 − 0.05^(1/12) = 0.2209 (closed form; scipy beta.ppf(0.95, 1, 12) = 0.22092219194555585).
    expect(c.overall.regressionRateUpper).toBeCloseTo(0.22092219194555585, 12)
    expect(c.verdict).toBe('INSUFFICIENT_EVIDENCE')
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
    // 30 identical pass/fail pairs: the exact bound (0.095) is too wide for GO, yet the evaluator decides NO_GO.
    expect(c.overall.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(c.evaluators.map((e) => [e.evaluatorId, e.verdict])).toEqual([['quality', 'NO_GO']])
    expect(c.verdict).toBe('NO_GO')
  })

  it('rejects bad settings with the field named', () => {
    expect(() => compareToBaseline(run('b', []), run('c', []), { maxDrop: 2 })).toThrow(/maxDrop/)
  })
})
