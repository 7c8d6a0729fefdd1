import { describe, expect, it } from 'vitest'
import {
  logBeta,
  logGamma,
  regularizedBeta,
  regularizedGammaP,
  regularizedGammaQ,
} from '../../../src/scorers/stats/index.ts'

/** |actual − expected| ≤ tolerance · |expected|, with a readable failure message. */
function expectRelative(actual: number, expected: number, tolerance: number): void {
  const error = Math.abs(actual - expected) / Math.abs(expected)
  expect(error, `${actual} vs ${expected} (relative error ${error})`).toBeLessThanOrEqual(tolerance)
}

/**
 * Relative error for |expected| ≥ 1, absolute below: ln Γ has zeros at 1 and 2, where no method has a
 * relative accuracy, and what matters downstream (exp of a sum) is the absolute error of the log.
 */
function expectLogAccurate(actual: number, expected: number, tolerance: number): void {
  const error = Math.abs(actual - expected) / Math.max(1, Math.abs(expected))
  expect(error, `${actual} vs ${expected} (error ${error})`).toBeLessThanOrEqual(tolerance)
}

describe('logGamma', () => {
  it('matches 40-digit mpmath references', () => {
    // mpmath 1.3.0, mp.dps = 40: mp.loggamma(x), printed to 17 significant digits.
    const references: [number, number][] = [
      [1e-10, 23.025850929882735],
      [1.5, -0.12078223763524522],
      [3.7, 1.4280723266653881],
      [10, 12.80182748008147],
      [100, 359.1342053695754],
      [1234.5, 7550.5509010778949],
      [1e6, 12815504.569147612],
    ]
    for (const [x, expected] of references) expectLogAccurate(logGamma(x), expected, 1e-14)
  })

  it('gives Γ(½) = √π, Γ(1) = Γ(2) = 1 and ln (n−1)! at the integers', () => {
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14)
    expect(logGamma(1)).toBeCloseTo(0, 14)
    expect(logGamma(2)).toBeCloseTo(0, 14)
    let logFactorial = 0
    for (let n = 1; n <= 30; n++) {
      // lnΓ(n + 1) = ln n!, accumulated from exact integer logs.
      logFactorial += Math.log(n)
      expectLogAccurate(logGamma(n + 1), logFactorial, 1e-14)
    }
  })

  it('satisfies the recurrence lnΓ(x + 1) = lnΓ(x) + ln x across the series switch at 10', () => {
    for (const x of [0.3, 2.2, 8.9, 9.5, 9.999, 10.5, 57.25]) {
      expect(logGamma(x + 1)).toBeCloseTo(logGamma(x) + Math.log(x), 12)
    }
  })

  it('rejects x ≤ 0 and non-finite x', () => {
    expect(() => logGamma(0)).toThrow(RangeError)
    expect(() => logGamma(-1.5)).toThrow(RangeError)
    expect(() => logGamma(Number.NaN)).toThrow(RangeError)
    // ln Γ(1e308) ≈ 7e310 has no double; a RangeError beats an Infinity that JSON would turn into null.
    expect(() => logGamma(1e308)).toThrow(RangeError)
  })
})

describe('logBeta', () => {
  it('matches the ln Γ definition where that is exact enough, and is symmetric', () => {
    // B(2, 3) = 1!·2!/4! = 1/12; B(½, ½) = π.
    expect(logBeta(2, 3)).toBeCloseTo(-Math.log(12), 14)
    expect(logBeta(0.5, 0.5)).toBeCloseTo(Math.log(Math.PI), 14)
    expect(logBeta(7.5, 30)).toBe(logBeta(30, 7.5))
  })

  it('keeps full relative accuracy for huge arguments, where ln Γ differences cancel', () => {
    // mpmath 1.3.0, mp.dps = 40: mp.log(mp.beta(a, b)).
    expectRelative(logBeta(0.5, 5e7), -8.29140183627151, 1e-14)
    expectRelative(logBeta(1e4, 3e4), -22496.948166341114, 1e-14)
  })
})

describe('regularizedBeta', () => {
  it('matches closed forms: I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b, I_x(½, ½) = (2/π) asin √x', () => {
    for (const x of [0.001, 0.2, 0.5, 0.77, 0.999]) {
      for (const a of [0.3, 1, 2.5, 40]) expectRelative(regularizedBeta(x, a, 1), x ** a, 1e-13)
      // 1 − (1 − x)^b written as −expm1(b·log1p(−x)) so the reference itself keeps its digits at small x.
      for (const b of [0.3, 1, 2.5, 40])
        expectRelative(regularizedBeta(x, 1, b), -Math.expm1(b * Math.log1p(-x)), 1e-13)
      expectRelative(regularizedBeta(x, 0.5, 0.5), (2 / Math.PI) * Math.asin(Math.sqrt(x)), 1e-13)
    }
  })

  it('matches the binomial tail identity for integer a, b', () => {
    // For integer a, b: I_x(a, b) = P[Binomial(a + b − 1, x) ≥ a] = Σ_{j=a}^{a+b−1} C(a+b−1, j) x^j (1−x)^{a+b−1−j}.
    const choose = (n: number, k: number) => {
      let c = 1
      for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i
      return c
    }
    for (const [a, b] of [
      [1, 1],
      [2, 5],
      [7, 3],
      [12, 12],
    ] as const) {
      for (const x of [0.05, 0.3, 0.5, 0.8]) {
        const n = a + b - 1
        let tail = 0
        for (let j = a; j <= n; j++) tail += choose(n, j) * x ** j * (1 - x) ** (n - j)
        expectRelative(regularizedBeta(x, a, b), tail, 1e-12)
      }
    }
  })

  it('matches 40-digit mpmath references, including far tails and huge parameters', () => {
    // mpmath 1.3.0, mp.dps = 40: mp.betainc(a, b, 0, x, regularized=True).
    const references: [number, number, number, number][] = [
      [0.3, 2.5, 3.5, 0.29675298929566638],
      [0.75, 0.3, 12, 0.99999999583103251],
      [0.4, 30, 40, 0.31814380259056299],
      [0.999, 50, 0.5, 0.75236901996537668],
      [0.49, 1000, 1000, 0.18555265943151145],
      [0.2, 1000, 1000, 2.2479089280358389e-196],
      [0.9999, 5e5, 0.5, 1.5201662808362065e-23],
    ]
    for (const [x, a, b, expected] of references) expectRelative(regularizedBeta(x, a, b), expected, 1e-12)
  })

  it('satisfies the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) and hits the end points exactly', () => {
    for (const [x, a, b] of [
      [0.25, 3, 9],
      [0.6, 0.7, 4.2],
      [0.95, 20, 2],
    ] as const) {
      expect(regularizedBeta(x, a, b)).toBeCloseTo(1 - regularizedBeta(1 - x, b, a), 14)
    }
    expect(regularizedBeta(0, 2, 3)).toBe(0)
    expect(regularizedBeta(1, 2, 3)).toBe(1)
  })

  it('rejects x outside [0, 1] and non-positive parameters', () => {
    expect(() => regularizedBeta(1.5, 1, 1)).toThrow(RangeError)
    expect(() => regularizedBeta(0.5, 0, 1)).toThrow(RangeError)
    expect(() => regularizedBeta(0.5, 1, -2)).toThrow(RangeError)
  })
})

describe('regularized incomplete gamma', () => {
  it('matches 40-digit mpmath references for P and Q on both sides of the series/fraction switch', () => {
    // mpmath 1.3.0, mp.dps = 40: mp.gammainc(a, 0, x, regularized=True) and mp.gammainc(a, x, mp.inf, ...).
    const references: [number, number, number, number][] = [
      [0.5, 0.1, 0.34527915398142298, 0.65472084601857702],
      [0.5, 3, 0.98569412156457036, 0.01430587843542964],
      [3, 2, 0.32332358381693654, 0.67667641618306346],
      [2.5, 1, 0.15085496391539036, 0.84914503608460964],
      [10, 30, 0.99999287824913718, 7.1217508628155771e-6],
    ]
    for (const [a, x, p, q] of references) {
      expectRelative(regularizedGammaP(a, x), p, 1e-13)
      expectRelative(regularizedGammaQ(a, x), q, 1e-13)
    }
  })

  it('matches the closed form P(1, x) = 1 − e^−x', () => {
    for (const x of [0.01, 0.5, 2, 9]) expect(regularizedGammaP(1, x)).toBeCloseTo(-Math.expm1(-x), 14)
  })
})
