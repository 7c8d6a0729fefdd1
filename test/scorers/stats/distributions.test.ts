import { describe, expect, it } from 'vitest'
import {
  binomialCdf,
  binomialPmf,
  normalCdf,
  normalQuantile,
  regularizedBeta,
  studentTCdf,
  studentTQuantile,
} from '../../../src/scorers/stats/index.ts'
import { bigChoose, ratio } from './exact-arithmetic.ts'

function expectRelative(actual: number, expected: number, tolerance: number): void {
  const error = Math.abs(actual - expected) / Math.abs(expected)
  expect(error, `${actual} vs ${expected} (relative error ${error})`).toBeLessThanOrEqual(tolerance)
}

describe('studentTQuantile', () => {
  it('reproduces the NIST/SEMATECH e-Handbook table of t critical values to its three decimals', () => {
    // NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2 "Critical Values of the Student's t
    // Distribution" (upper-tail probabilities 0.025, 0.05, 0.01, 0.005, 0.001 → p = 1 − that).
    const table: [p: number, df: number, t: number][] = [
      [0.975, 1, 12.706],
      [0.975, 2, 4.303],
      [0.975, 3, 3.182],
      [0.975, 5, 2.571],
      [0.975, 10, 2.228],
      [0.975, 20, 2.086],
      [0.975, 30, 2.042],
      [0.975, 120, 1.98],
      [0.95, 10, 1.812],
      [0.99, 10, 2.764],
      [0.995, 5, 4.032],
      [0.999, 10, 4.144],
    ]
    for (const [p, df, t] of table) expect(studentTQuantile(p, df)).toBeCloseTo(t, 3)
  })

  it('matches high-precision quantiles, including non-integer and tiny df', () => {
    // mpmath 1.3.0 (mp.dps = 40): mp.findroot on the exact CDF ½·I_{df/(df+t²)}(df/2, ½); agrees with
    // scipy 1.17.1 stats.t.ppf to 15 digits.
    const references: [p: number, df: number, t: number][] = [
      [0.975, 7, 2.3646242515927847],
      [0.975, 10, 2.2281388519862742],
      [0.975, 120, 1.9799304050824405],
      [0.8, 10, 0.87905782855058886],
      [0.975, 2.5, 3.5746548420036818],
      [0.025, 4.5, -2.6589123472044037],
      [0.9, 0.3, 64.786545637096949],
      [1e-8, 3, -479.52506957973828],
      [0.975, 1e6, 1.9599663568141067],
    ]
    for (const [p, df, t] of references) expectRelative(studentTQuantile(p, df), t, 1e-12)
  })

  it('matches the closed forms for df = 1 (Cauchy) and df = 2', () => {
    for (const p of [1e-9, 0.001, 0.1, 0.3, 0.6, 0.9, 0.975, 0.999]) {
      // df = 1: tan(π(p − ½)), written as −1/tan(πp) so small p keeps its digits; df = 2: (2p − 1)/√(2p(1 − p)).
      expectRelative(studentTQuantile(p, 1), -1 / Math.tan(Math.PI * p), 1e-12)
      expectRelative(studentTQuantile(p, 2), (2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 1e-12)
    }
  })

  it('round-trips through the CDF to 1e-12', () => {
    for (const df of [0.5, 1, 3, 7.5, 30, 1000, 1e7]) {
      for (const p of [1e-6, 0.01, 0.2, 0.4999, 0.5, 0.7, 0.975, 0.999999]) {
        const t = studentTQuantile(p, df)
        const tail = Math.min(p, 1 - p)
        expect(Math.abs(studentTCdf(t, df) - p) / tail, `df ${df}, p ${p}`).toBeLessThan(1e-12)
      }
    }
  })

  it('approaches the normal quantile 1.959964 from above as df grows', () => {
    const z = 1.959963984540054
    const sequence = [10, 100, 1e3, 1e5, 1e7].map((df) => studentTQuantile(0.975, df))
    for (let i = 1; i < sequence.length; i++) expect(sequence[i]!).toBeLessThan(sequence[i - 1]!)
    expect(sequence.at(-1)!).toBeGreaterThan(z)
    // The leading correction is z(z² + 1)/(4 df) ≈ 2.4e-7 at df = 1e7.
    expect(sequence.at(-1)! - z).toBeLessThan(3e-7)
    expect(studentTQuantile(0.975, 1e7)).toBeCloseTo(1.95996, 5)
  })

  it('is antisymmetric and rejects p outside (0, 1) and df ≤ 0', () => {
    expect(studentTQuantile(0.5, 4)).toBe(0)
    // 0.25 and 0.75 are exact complements in binary, so the two quantiles must mirror exactly.
    expect(studentTQuantile(0.25, 4)).toBe(-studentTQuantile(0.75, 4))
    expect(() => studentTQuantile(0, 4)).toThrow(RangeError)
    expect(() => studentTQuantile(1, 4)).toThrow(RangeError)
    expect(() => studentTQuantile(0.5, 0)).toThrow(RangeError)
    expect(() => studentTQuantile(Number.NaN, 4)).toThrow(RangeError)
  })
})

describe('studentTCdf', () => {
  it('matches high-precision values, including df = 1e8 where naive fractions lose digits', () => {
    // mpmath 1.3.0 (mp.dps = 40): ½·I_x(df/2, ½) with x = df/(df + t²), mirrored for t > 0.
    const references: [t: number, df: number, p: number][] = [
      [1.5, 3, 0.88470806737758847],
      [-4, 2.5, 0.019506487920659123],
      [0.1, 10, 0.53883964071779584],
      [-30, 7, 5.8942344403665701e-9],
      [0.5, 0.3, 0.59964460368926122],
      [-1e-6, 5, 0.49999962039331018],
      [-2, 1e6, 0.022750266925659604],
      [-1, 1e8, 0.15865525514131067],
    ]
    for (const [t, df, p] of references) expectRelative(studentTCdf(t, df), p, 1e-13)
  })

  it('matches the closed forms for df = 1 and df = 2', () => {
    for (const t of [-1e6, -50, -3, -0.5, -1e-9, 0, 0.7, 4, 1e3]) {
      // Lower tails in cancellation-free form: F₁(t) = atan(1/|t|)/π and F₂(t) = 1/((√(2+t²) + |t|)√(2+t²)).
      const a = Math.abs(t)
      const r = Math.sqrt(2 + t * t)
      const lower1 = t === 0 ? 0.5 : Math.atan(1 / a) / Math.PI
      const lower2 = 1 / ((r + a) * r)
      expectRelative(studentTCdf(-a, 1), lower1, 1e-13)
      expectRelative(studentTCdf(-a, 2), lower2, 1e-13)
      expect(studentTCdf(a, 1)).toBeCloseTo(1 - lower1, 14)
      expect(studentTCdf(a, 2)).toBeCloseTo(1 - lower2, 14)
    }
  })

  it('handles infinite t and rejects NaN', () => {
    expect(studentTCdf(Number.NEGATIVE_INFINITY, 3)).toBe(0)
    expect(studentTCdf(Number.POSITIVE_INFINITY, 3)).toBe(1)
    expect(studentTCdf(-1e200, 3)).toBe(0)
    expect(() => studentTCdf(Number.NaN, 3)).toThrow(RangeError)
    expect(() => studentTCdf(1, -1)).toThrow(RangeError)
  })
})

describe('normal distribution', () => {
  it('normalQuantile(0.975) = 1.959963984540054 and normalCdf(1.96) = 0.9750021048517795', () => {
    expectRelative(normalQuantile(0.975), 1.959963984540054, 1e-14)
    expectRelative(normalCdf(1.96), 0.9750021048517795, 1e-14)
  })

  it('matches high-precision CDF values, keeping relative accuracy deep in the lower tail', () => {
    // mpmath 1.3.0 (mp.dps = 40): mp.ncdf(x).
    const references: [x: number, p: number][] = [
      [-10, 7.6198530241605261e-24],
      [-5, 2.8665157187919391e-7],
      [-3, 0.0013498980316300945],
      [-1, 0.15865525393145705],
      [0.5, 0.6914624612740131],
      [3, 0.99865010196836991],
    ]
    for (const [x, p] of references) expectRelative(normalCdf(x), p, 1e-13)
    expect(normalCdf(0)).toBe(0.5)
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0)
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1)
  })

  it('matches high-precision quantiles from 1e-300 to 0.995', () => {
    // mpmath 1.3.0 (mp.dps = 40): mp.findroot(lambda x: mp.ncdf(x) - p).
    const references: [p: number, x: number][] = [
      [1e-300, -37.047096299361199],
      [1e-10, -6.3613409024040562],
      [0.001, -3.0902323061678135],
      [0.025, -1.9599639845400542],
      [0.3, -0.52440051270804082],
      [0.9, 1.2815515655446006],
      [0.995, 2.5758293035489005],
    ]
    for (const [p, x] of references) expectRelative(normalQuantile(p), x, 1e-14)
  })

  it('round-trips and is antisymmetric', () => {
    for (const p of [1e-100, 1e-6, 0.02, 0.2, 0.45]) expectRelative(normalCdf(normalQuantile(p)), p, 1e-13)
    // Exact binary complements, so the mirrored quantiles must agree to the last bit.
    for (const p of [0.0625, 0.25, 0.375]) expect(normalQuantile(1 - p)).toBe(-normalQuantile(p))
    expect(normalQuantile(0.5)).toBe(0)
    expect(() => normalQuantile(0)).toThrow(RangeError)
    expect(() => normalQuantile(1)).toThrow(RangeError)
  })
})

describe('binomial distribution', () => {
  it('pmf matches exact big-integer C(n, k)/2^n for n = 3000', () => {
    const n = 3000
    const total = 1n << BigInt(n)
    for (const k of [1000, 1400, 1499, 1500, 1501, 1650, 2000]) {
      expectRelative(binomialPmf(k, n, 0.5), ratio(bigChoose(n, k), total), 1e-11)
    }
  })

  it('cdf matches exact big-integer sums for n = 3000', () => {
    const n = 3000
    const total = 1n << BigInt(n)
    for (const k of [1300, 1450, 1500, 1550, 1700]) {
      let sum = 0n
      let term = 1n
      for (let i = 0; i <= k; i++) {
        sum += term
        term = (term * BigInt(n - i)) / BigInt(i + 1)
      }
      expectRelative(binomialCdf(k, n, 0.5), ratio(sum, total), 1e-11)
    }
  })

  it('matches values with p ≠ ½', () => {
    // P[Binomial(10, 0.3) ≤ 3] = Σ_{i≤3} C(10,i) 0.3^i 0.7^(10−i) = 0.0282475249 + 0.1210608210 + 0.2334744405
    // + 0.2668279320 = 0.6496107184 (exact decimal).
    expect(binomialCdf(3, 10, 0.3)).toBeCloseTo(0.6496107184, 14)
    // mpmath 1.3.0 (mp.dps = 40): binomial(3000, k)·0.03^k·0.97^(3000−k), and its sum over k ≤ 80.
    expectRelative(binomialPmf(100, 3000, 0.03), 0.023314948660180358, 1e-11)
    expectRelative(binomialCdf(80, 3000, 0.03), 0.15439061169251282, 1e-11)
  })

  it('switches to the incomplete beta above n = 10 000 without losing accuracy', () => {
    // Exact rationals Σ_{i≤k} C(20000, i)·3^i·7^(20000−i) / 10^20000, summed with Python integers and
    // rounded with mpmath (40 digits).
    const references: [k: number, p: number][] = [
      [5800, 0.0010100643946661029],
      [5950, 0.22262077430005674],
      [6000, 0.50348822017935867],
      [6100, 0.93934767785617381],
    ]
    for (const [k, p] of references) expectRelative(binomialCdf(k, 20_000, 0.3), p, 1e-11)
    // At n = 10 000 the sum is used; it must agree with the identity P[X ≤ k] = I_{1−p}(n − k, k + 1).
    for (const k of [2900, 3000, 3100]) {
      expectRelative(binomialCdf(k, 10_000, 0.3), regularizedBeta(0.7, 10_000 - k, k + 1), 1e-11)
    }
    expect(binomialCdf(5, 1e9, 0)).toBe(1)
    expect(binomialCdf(5, 1e9, 1)).toBe(0)
  })

  it('sums to one, and handles p ∈ {0, 1}, k outside [0, n] and fractional k', () => {
    let total = 0
    for (let k = 0; k <= 40; k++) total += binomialPmf(k, 40, 0.37)
    expect(total).toBeCloseTo(1, 14)
    expect(binomialPmf(0, 5, 0)).toBe(1)
    expect(binomialPmf(1, 5, 0)).toBe(0)
    expect(binomialPmf(5, 5, 1)).toBe(1)
    expect(binomialCdf(4, 5, 1)).toBe(0)
    expect(binomialPmf(-1, 5, 0.5)).toBe(0)
    expect(binomialPmf(6, 5, 0.5)).toBe(0)
    expect(binomialCdf(-0.5, 5, 0.5)).toBe(0)
    expect(binomialCdf(5, 5, 0.5)).toBe(1)
    expect(binomialCdf(2.7, 5, 0.5)).toBe(binomialCdf(2, 5, 0.5))
    expect(binomialCdf(2, 5, 0.5)).toBe(16 / 32)
  })

  it('rejects invalid n, p and k', () => {
    expect(() => binomialPmf(1.5, 5, 0.5)).toThrow(RangeError)
    expect(() => binomialPmf(1, -5, 0.5)).toThrow(RangeError)
    expect(() => binomialCdf(1, 5, 1.2)).toThrow(RangeError)
    expect(() => binomialCdf(Number.NaN, 5, 0.5)).toThrow(RangeError)
  })
})
