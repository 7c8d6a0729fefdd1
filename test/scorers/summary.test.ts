import { describe, expect, it } from 'vitest'
import { RunSummary, type TrialRecord } from '../../src/core/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, statsScorer, summarizeTrials } from '../../src/scorers/index.ts'
import { scoredTrial } from '../support/trials.ts'

const summarize = (trials: readonly TrialRecord[], settings = DEFAULT_SUMMARY_SETTINGS) =>
  RunSummary.parse(summarizeTrials(trials, settings))

/**
 * Three tasks × two trials. Per-task pass rates 1, ½, ½ (the hand-worked figures below come from these), categories
 * arithmetic | tools | tools.
 */
function threeByTwo(): TrialRecord[] {
  return [
    scoredTrial({ taskId: 'a', trial: 0, passed: true, category: 'arithmetic', named: { exact: 1 } }),
    scoredTrial({ taskId: 'a', trial: 1, passed: true, category: 'arithmetic', named: { exact: 1 } }),
    scoredTrial({ taskId: 'b', trial: 0, passed: true, category: 'tools', named: { exact: 1 } }),
    scoredTrial({
      taskId: 'b',
      trial: 1,
      passed: false,
      outcome: 'policy_violation',
      category: 'tools',
      named: { exact: 1 },
    }),
    scoredTrial({ taskId: 'c', trial: 0, passed: true, category: 'tools', named: { exact: 1 } }),
    scoredTrial({ taskId: 'c', trial: 1, passed: false, category: 'tools', named: { exact: 0 } }),
  ]
}

describe('summarizeTrials: trials of a task', () => {
  it('reports n, successes, pass rate, consistency (2p̂−1)² and the flaky flag per task', () => {
    const s = summarize(threeByTwo())
    expect(s.tasks.map((t) => [t.taskId, t.trials, t.passed, t.passRate, t.consistency, t.flaky])).toEqual([
      ['a', 2, 2, 1, 1, false],
      ['b', 2, 1, 0.5, 0, true],
      ['c', 2, 1, 0.5, 0, true],
    ])
    expect(s.headline.flaky).toEqual(['toy/b', 'toy/c'])
    expect(s.headline.neverPassed).toEqual([])
  })

  it('gives the headline as the mean of per-task rates with a t interval over tasks, clamped to [0, 1]', () => {
    const { primary } = summarize(threeByTwo()).headline
    // Rates 1, ½, ½: mean ⅔; sd = √(((⅓)² + 2(⅙)²)/2) = √(1/12); se = √(1/12)/√3 = ⅙;
    // t(0.975, 2) = 4.303 (NIST table) → ⅔ ± 0.7171 = [−0.050, 1.384], clamped to [0, 1].
    expect(primary.method).toBe('t')
    expect(primary.rate).toBeCloseTo(2 / 3, 12)
    expect(primary.ci).toEqual({ lower: 0, upper: 1 })
    // The evaluator's per-task means 1, 1, ½: 5/6 ± 4.303 · ⅙ → lower 0.1162 inside [0, 1], upper clipped to 1.
    const exact = summarize(threeByTwo()).evaluators[0]!.score.ci!
    expect(exact.lower).toBeCloseTo(5 / 6 - 4.302653 / 6, 5)
    expect(exact.upper).toBe(1)
  })

  it('computes pass@k and pass^k from the unbiased estimators, averaged over tasks', () => {
    const rows = summarize(threeByTwo()).overall.passAtK
    // n = 2 per task, c = 2, 1, 1. pass@1 = mean(c/n) = ⅔; pass@2 = 1 for each task (n − c < 2);
    // pass^2 = C(c,2)/C(2,2) = 1, 0, 0 → ⅓.
    expect(rows).toEqual([
      { k: 1, passAtK: 2 / 3, passHatK: 2 / 3, tasks: 3, undefinedTasks: 0 },
      { k: 2, passAtK: 1, passHatK: 1 / 3, tasks: 3, undefinedTasks: 0 },
    ])
  })

  it('reports pass@k as undefined (null in JSON, never NaN) where a task has fewer than k trials', () => {
    const trials = [
      scoredTrial({ taskId: 'a', trial: 0, passed: true }),
      scoredTrial({ taskId: 'a', trial: 1, passed: false }),
      scoredTrial({ taskId: 'a', trial: 2, passed: true }),
      scoredTrial({ taskId: 'b', trial: 0, passed: false }),
    ]
    const rows = summarize(trials).overall.passAtK
    expect(rows[0]).toEqual({
      k: 1,
      passAtK: (2 / 3 + 0) / 2,
      passHatK: (2 / 3 + 0) / 2,
      tasks: 2,
      undefinedTasks: 0,
    })
    expect(rows[1]).toMatchObject({ k: 2, passAtK: null, passHatK: null, tasks: 1, undefinedTasks: 1 })
    expect(JSON.stringify(rows)).not.toMatch(/NaN|Infinity/)
    expect((JSON.parse(JSON.stringify(rows)) as unknown[])[2]).toEqual({
      k: 3,
      passAtK: null,
      passHatK: null,
      tasks: 1,
      undefinedTasks: 1,
    })
  })

  it('clusters the standard error by the configured task label', () => {
    const s = summarize(threeByTwo())
    // Pass values 1, ½, ½ (mean ⅔), residuals ⅓, −⅙, −⅙; cluster sums arithmetic ⅓, tools −⅓;
    // Var = G/(G−1) · Σ(sums²)/n² = 2 · (2/9)/9 = 4/81 → SE = 2/9.
    expect(s.overall.pass.clusteredSe).toBeCloseTo(2 / 9, 12)
    expect(s.overall.pass.clusters).toBe(2)
    // Clustering off: every task its own cluster, and the clustered SE is the ordinary one (⅙).
    const off = summarize(threeByTwo(), { ...DEFAULT_SUMMARY_SETTINGS, clusterBy: null })
    expect(off.overall.pass.clusteredSe).toBeCloseTo(1 / 6, 12)
    expect(off.overall.pass.se).toBeCloseTo(1 / 6, 12)
  })

  it('summarises each evaluator over tasks: per-task means 1, 1, ½', () => {
    const [exact] = summarize(threeByTwo()).evaluators
    expect(exact).toMatchObject({ evaluatorId: 'exact', n: 6, errors: 0 })
    expect(exact!.score.mean).toBeCloseTo(5 / 6, 12)
    expect(exact!.passCount).toMatchObject({ trials: 6, passed: 5 })
    expect(exact!.passAtK.map((r) => r.passHatK)).toEqual([5 / 6, 2 / 3])
  })

  it('writes its settings, and the reducer changes how trials of a task combine', () => {
    const max = summarize(threeByTwo(), { ...DEFAULT_SUMMARY_SETTINGS, reducer: 'max' })
    expect(max.settings.reducer).toBe('max')
    // Every task passed at least once: per-task values 1, 1, 1, pass/fail per task → Wilson over 3 tasks.
    expect(max.headline.primary).toMatchObject({ rate: 1, method: 'wilson' })
    expect(max.headline.primary.ci!.upper).toBe(1)
  })
})

describe('summarizeTrials: one trial per task', () => {
  it('uses the Wilson interval: 7 of 10 → [0.3968, 0.8922]', () => {
    // Wilson (1927) score interval, z = 1.959964: centre (0.7 + z²/20)/(1 + z²/10), half-width
    // z·√(0.21/10 + z²/400)/(1 + z²/10), worked by hand.
    const trials = Array.from({ length: 10 }, (_, i) => scoredTrial({ taskId: `t${i}`, passed: i < 7 }))
    const { primary } = summarize(trials).headline
    expect(primary).toMatchObject({ rate: 0.7, method: 'wilson', tasks: 10, trials: 10 })
    expect(primary.ci!.lower).toBeCloseTo(0.3968, 4)
    expect(primary.ci!.upper).toBeCloseTo(0.8922, 4)
    expect(summarize(trials).overall.passAtK).toHaveLength(1)
  })

  it('gives a 0/1 evaluator the Wilson interval the headline has, and a continuous one the t interval', () => {
    // 7 of 10 tasks score 1 on `exact`: Wilson [0.39677814746114537, 0.8922087325936989] (scipy 1.17.1
    // binomtest(7, 10).proportion_ci(0.95, 'wilson'), and the formula above). The t interval would be
    // 0.7 ± t(0.975, 9) · √(0.21·10/9)/√10 = [0.3544, 1.0456] → clamped [0.3544, 1].
    const quality = [0.2, 0.5, 0.9, 0.4, 0.7, 1.0, 0.0, 0.6, 0.3, 0.8]
    const trials = Array.from({ length: 10 }, (_, i) =>
      scoredTrial({ taskId: `t${i}`, passed: i < 7, named: { exact: i < 7 ? 1 : 0, quality: quality[i]! } }),
    )
    const s = summarize(trials)
    const exact = s.evaluators.find((e) => e.evaluatorId === 'exact')!
    expect(exact.score.ci!.lower).toBeCloseTo(0.39677814746114537, 12)
    expect(exact.score.ci!.upper).toBeCloseTo(0.8922087325936989, 12)
    expect(exact.pass.ci).toEqual(exact.score.ci)
    expect(s.overall.pass.ci).toEqual(s.headline.primary.ci)
    // Continuous scores keep the t interval: mean 0.54, scipy t.ppf(0.975, 9) · sd/√10 → [0.3107879185, 0.7692120815].
    const q = s.evaluators.find((e) => e.evaluatorId === 'quality')!
    expect(q.score.ci!.lower).toBeCloseTo(0.310787918512617, 10)
    expect(q.score.ci!.upper).toBeCloseTo(0.7692120814873828, 10)
  })

  it('gives the headline with infra failures counted as failures and excluded', () => {
    const trials = [
      scoredTrial({ taskId: 'a', passed: true }),
      scoredTrial({ taskId: 'b', passed: true }),
      scoredTrial({ taskId: 'c', passed: false }),
      scoredTrial({ taskId: 'd', passed: false, outcome: 'infra_failure' }),
    ]
    const s = summarize(trials)
    expect(s.headline.infraAsFailure).toMatchObject({ rate: 0.5, tasks: 4 })
    expect(s.headline.infraExcluded).toMatchObject({ rate: 2 / 3, tasks: 3 })
    expect(s.headline.primary).toEqual(s.headline.infraAsFailure)
    const excluded = summarize(trials, { ...DEFAULT_SUMMARY_SETTINGS, errorPolicy: 'exclude' })
    expect(excluded.headline.primary).toEqual(excluded.headline.infraExcluded)
    expect(excluded.settings.errorPolicy).toBe('exclude')
    expect(s.outcomes).toEqual({ passed: 2, failed: 1, infra_failure: 1 })
    expect(s.terminations).toEqual({ completed: 3, none: 1 })
  })

  it('handles n = 1: no interval but Wilson, no NaN anywhere', () => {
    const s = summarize([scoredTrial({ taskId: 'only', passed: false })])
    expect(s.headline.primary.ci!.lower).toBe(0)
    // Wilson at 0 of 1: [0, z²/(1 + z²)], the same as the headline's.
    expect(s.overall.pass).toMatchObject({ tasks: 1, mean: 0, se: null, bootstrapCi: null })
    expect(s.overall.pass.ci).toEqual(s.headline.primary.ci)
    expect(s.headline.neverPassed).toEqual(['toy/only'])
    expect(JSON.stringify(s)).not.toMatch(/NaN|Infinity/)
  })

  it('handles an empty run', () => {
    const s = summarize([])
    expect(s).toMatchObject({ n: 0, passed: 0, passRate: 0, evaluators: [], tasks: [] })
    expect(s.headline.primary).toMatchObject({ rate: null, ci: null, tasks: 0 })
    expect(s.usage.costPerSolved).toBeNull()
  })
})

describe('summarizeTrials: usage', () => {
  it('gives totals, p50 / p95 / max per trial (type 7) and the cost per solved task', () => {
    const trials = [1, 2, 3, 4].map((cost, i) =>
      scoredTrial({ taskId: `t${i}`, passed: i % 2 === 0, costUsd: cost, tokens: cost * 10 }),
    )
    const { usage } = summarize(trials)
    expect(usage.costUsd).toBe(10)
    // Sorted 1, 2, 3, 4: p50 = 2.5; p95 at h = 3·0.95 = 2.85 → 3 + 0.85·(4 − 3) = 3.85.
    expect(usage.perTrial.costUsd).toEqual({ p50: 2.5, p95: expect.closeTo(3.85, 12) as number, max: 4 })
    expect(usage.perTrial.tokens.max).toBe(40)
    expect(usage.costPerSolved).toBe(5)
  })
})

describe('summarizeTrials: determinism', () => {
  it('gives the same summary whatever order the trials arrive in', () => {
    const trials = threeByTwo()
    const shuffled = [trials[4]!, trials[1]!, trials[5]!, trials[0]!, trials[3]!, trials[2]!]
    expect(JSON.stringify(summarizeTrials(shuffled, DEFAULT_SUMMARY_SETTINGS))).toBe(
      JSON.stringify(summarizeTrials(trials, DEFAULT_SUMMARY_SETTINGS)),
    )
  })

  it('records the bootstrap B and seed, and the seed decides the bootstrap interval', () => {
    const trials = Array.from({ length: 40 }, (_, i) =>
      scoredTrial({ taskId: `t${i}`, trial: 0, passed: i % 3 !== 0, named: { exact: (i % 7) / 6 } }),
    )
    const a = statsScorer({ bootstrap: { seed: 1, resamples: 500 } }).summarize(trials)
    const b = statsScorer({ bootstrap: { seed: 1, resamples: 500 } }).summarize(trials)
    const c = statsScorer({ bootstrap: { seed: 2, resamples: 500 } }).summarize(trials)
    expect(a.settings.bootstrap).toEqual({ seed: 1, resamples: 500 })
    expect(a.evaluators[0]!.score.bootstrapCi).toEqual(b.evaluators[0]!.score.bootstrapCi)
    expect(a.evaluators[0]!.score.bootstrapCi).not.toEqual(c.evaluators[0]!.score.bootstrapCi)
  })

  it('refuses bad settings with an error that names the field', () => {
    expect(() => statsScorer({ confidence: 1.5 })).toThrow(/confidence/)
    expect(() => statsScorer({ bootstrap: { resamples: 10_000_000 } })).toThrow(/at most 100000/)
  })
})

describe('the acceptance run: 49 tasks at 10/10 and one at 0/10', () => {
  it('names the broken task in the headline instead of hiding it in a 98% average', () => {
    const trials: TrialRecord[] = []
    for (let t = 0; t < 50; t++)
      for (let k = 0; k < 10; k++)
        trials.push(scoredTrial({ taskId: t === 17 ? 'broken' : `ok-${t}`, trial: k, passed: t !== 17 }))
    const s = summarize(trials)
    expect(s.headline.primary.rate).toBeCloseTo(0.98, 12)
    expect(s.headline.neverPassed).toEqual(['toy/broken'])
    expect(s.headline.flaky).toEqual([])
    expect(s.overall.passAtK.at(-1)).toMatchObject({ k: 10, passAtK: 0.98, passHatK: 0.98 })
  })
})
