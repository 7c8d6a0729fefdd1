import { describe, expect, it } from 'vitest'
import {
  clopperPearsonUpper,
  clusteredStandardError,
  normalQuantile,
  seededRandom,
  standardError,
  tInterval,
  wilsonInterval,
} from '../../../src/scorers/stats/index.ts'

describe('tInterval', () => {
  it('matches a hand-computed 95% interval', () => {
    // xs = [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, s² = 32/7, SE = √(32/7)/√8 = √(4/7) = 0.75592894601845.
    // t_{0.975, 7} = 2.3646242515927847 (scipy 1.17.1 stats.t.ppf; NIST table: 2.365).
    // Half-width 2.3646242515927847 · 0.75592894601845 = 1.78748791823621 → [3.21251208176379, 6.78748791823621].
    const interval = tInterval([2, 4, 4, 4, 5, 5, 7, 9])!
    expect(interval.lower).toBeCloseTo(3.21251208176379, 12)
    expect(interval.upper).toBeCloseTo(6.78748791823621, 12)
  })

  it('uses the requested confidence', () => {
    // t_{0.95, 7} = 1.8945786050900062 (scipy; NIST: 1.895); half-width · √(4/7) = 1.43216680809480.
    const interval = tInterval([2, 4, 4, 4, 5, 5, 7, 9], 0.9)!
    expect(interval.lower).toBeCloseTo(5 - 1.4321668080948, 12)
    expect(interval.upper).toBeCloseTo(5 + 1.4321668080948, 12)
  })

  it('collapses to the mean when SE is 0 and is null below two values', () => {
    expect(tInterval([0.25, 0.25, 0.25])).toEqual({ lower: 0.25, upper: 0.25 })
    expect(tInterval([1])).toBeNull()
    expect(tInterval([])).toBeNull()
    expect(() => tInterval([1, 2], 1)).toThrow(RangeError)
    expect(() => tInterval([1, 2], 0)).toThrow(RangeError)
  })
})

describe('wilsonInterval', () => {
  it('reproduces the worked examples of Newcombe (1998)', () => {
    // Newcombe RG, "Two-sided confidence intervals for the single proportion: comparison of seven methods",
    // Statistics in Medicine 17:857–872 (1998), Table II, method 3 (score method without continuity
    // correction), 95%, to the table's four decimals.
    const examples: [successes: number, n: number, lower: number, upper: number][] = [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
      [1, 29, 0.0061, 0.1718],
    ]
    for (const [successes, n, lower, upper] of examples) {
      const interval = wilsonInterval(successes, n)!
      expect(interval.lower).toBeCloseTo(lower, 4)
      expect(interval.upper).toBeCloseTo(upper, 4)
    }
  })

  it('gives [0, 0.2775] for 0/10 with the lower bound exactly 0, and upper exactly 1 at n/n', () => {
    // 0/10: upper = (z²/n)/(1 + z²/n) = 0.38414588/1.38414588 = 0.27753280 with z = 1.959964.
    const none = wilsonInterval(0, 10)!
    expect(none.lower).toBe(0)
    expect(none.upper).toBeCloseTo(0.2775328, 7)
    const all = wilsonInterval(10, 10)!
    expect(all.upper).toBe(1)
    expect(all.lower).toBeCloseTo(1 - 0.2775328, 7)
  })

  it('pins the bounds at 0 and n successes exactly, where the closed form is off by rounding', () => {
    // center − halfWidth at 0/1, 0/4, 0/12, … is ±1e-17 in floating point, and center + halfWidth at 11/11 is
    // 0.9999999999999999; a bound that misses 0 or 1 by an ulp would read as "not certain" in a report.
    for (let n = 1; n <= 60; n++) {
      expect(wilsonInterval(0, n)!.lower).toBe(0)
      expect(wilsonInterval(n, n)!.upper).toBe(1)
    }
  })

  it('is symmetric: the interval for n − c mirrors the one for c, and 5/10 is centred on ½', () => {
    for (const [c, n] of [
      [3, 10],
      [1, 7],
      [40, 97],
    ] as const) {
      const a = wilsonInterval(c, n)!
      const b = wilsonInterval(n - c, n)!
      expect(a.lower).toBeCloseTo(1 - b.upper, 14)
      expect(a.upper).toBeCloseTo(1 - b.lower, 14)
    }
    const half = wilsonInterval(5, 10)!
    expect(half.lower + half.upper).toBeCloseTo(1, 14)
  })

  it('has bounds that solve the score equation |p̂ − p| = z·√(p(1 − p)/n)', () => {
    // Wilson's interval is by definition the set of p the score test does not reject; check its end points
    // against that definition, independently of the closed form.
    for (const [c, n, confidence] of [
      [81, 263, 0.95],
      [2, 9, 0.9],
      [57, 60, 0.99],
    ] as const) {
      const z = normalQuantile((1 + confidence) / 2)
      const interval = wilsonInterval(c, n, confidence)!
      for (const p of [interval.lower, interval.upper]) {
        expect(Math.abs(c / n - p)).toBeCloseTo(z * Math.sqrt((p * (1 - p)) / n), 12)
      }
    }
  })

  it('is null for n = 0 and rejects impossible counts', () => {
    expect(wilsonInterval(0, 0)).toBeNull()
    expect(JSON.stringify({ wilson: wilsonInterval(0, 0) })).toBe('{"wilson":null}')
    expect(() => wilsonInterval(5, 4)).toThrow(RangeError)
    expect(() => wilsonInterval(1.5, 4)).toThrow(RangeError)
    expect(() => wilsonInterval(-1, 4)).toThrow(RangeError)
    expect(() => wilsonInterval(1, 4, 1.2)).toThrow(RangeError)
  })
})

describe('clusteredStandardError', () => {
  it('matches a hand-worked example with three clusters', () => {
    // values [1, 0 | 1, 1 | 0, 0], mean ½. Residual sums per cluster: a: ½ − ½ = 0, b: ½ + ½ = 1, c: −1.
    // Var = G/(G − 1) · Σ S_g² / n² = 3/2 · (0 + 1 + 1)/36 = 1/12, so SE = √(1/12) = 0.28867513459481287.
    // (The ordinary SE, treating all six as independent, is only √(0.3/6) = 0.2236.)
    const se = clusteredStandardError([1, 0, 1, 1, 0, 0], ['a', 'a', 'b', 'b', 'c', 'c'])
    expect(se).toBeCloseTo(0.28867513459481287, 14)
    expect(standardError([1, 0, 1, 1, 0, 0])).toBeCloseTo(Math.sqrt(0.05), 14)
  })

  it('matches a hand-worked example with two unequal clusters, in any order', () => {
    // values [3, 5 | 10], mean 6: S_x = −3 − 1 = −4, S_y = 4. Var = 2/1 · (16 + 16)/9 = 64/9, SE = 8/3.
    expect(clusteredStandardError([3, 5, 10], ['x', 'x', 'y'])).toBeCloseTo(8 / 3, 14)
    expect(clusteredStandardError([10, 3, 5], ['y', 'x', 'x'])).toBeCloseTo(8 / 3, 14)
  })

  it('equals the ordinary standard error when every cluster is a singleton', () => {
    // G = n gives n/(n − 1) · Σe²/n² = Σe²/(n(n − 1)) = s²/n.
    const random = seededRandom(7)
    for (const n of [2, 3, 10, 250]) {
      const values = Array.from({ length: n }, () => random() * 10 - 3)
      const clusters = values.map((_, i) => `task-${i}`)
      expect(clusteredStandardError(values, clusters)).toBeCloseTo(standardError(values)!, 13)
    }
  })

  it('is null with fewer than two clusters and rejects mismatched inputs', () => {
    expect(clusteredStandardError([1, 2, 3], ['a', 'a', 'a'])).toBeNull()
    expect(clusteredStandardError([], [])).toBeNull()
    expect(() => clusteredStandardError([1, 2], ['a'])).toThrow(RangeError)
    expect(() => clusteredStandardError([1, Number.NaN], ['a', 'b'])).toThrow(RangeError)
  })
})

describe('clopperPearsonUpper', () => {
  // Reference values: scipy 1.17.1 `stats.beta.ppf(0.95, k + 1, n - k)`, each confirmed to 1e-15 by an independent
  // bisection on the binomial CDF in exact rational arithmetic (Python fractions, 60 halvings: P[X ≤ k | n, p] =
  // 0.05), and for k = 0 by the closed form 1 − 0.05^(1/n).
  const REFERENCE: [k: number, n: number, upper: number][] = [
    [0, 1, 0.95],
    [0, 8, 0.3123439780663678],
    [0, 10, 0.2588655508930522],
    [0, 20, 0.13910834066826516],
    [0, 50, 0.05815507911697225],
    [0, 58, 0.050339338330420105],
    [0, 59, 0.04950760988822693],
    [1, 50, 0.09139813071969738],
    [2, 8, 0.5996893891908329],
    [3, 20, 0.3436638043142818],
    [5, 100, 0.1022533776432745],
    [30, 500, 0.08050473428435707],
  ]

  it.each(REFERENCE)('%i of %i: the exact one-sided 95%% upper bound', (k, n, upper) => {
    expect(clopperPearsonUpper(k, n, 0.95)).toBeCloseTo(upper, 12)
  })

  it('is about 3/n at 0 of n (the rule of three), 1 at n of n and null for no trials', () => {
    expect(clopperPearsonUpper(0, 300)! * 300).toBeCloseTo(3, 1)
    expect(clopperPearsonUpper(4, 4)).toBe(1)
    expect(clopperPearsonUpper(0, 0)).toBeNull()
    expect(() => clopperPearsonUpper(5, 4)).toThrow(RangeError)
    expect(() => clopperPearsonUpper(1, 4, 1)).toThrow(RangeError)
  })
})
