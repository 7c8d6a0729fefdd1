import { describe, expect, it } from 'vitest'
import {
  mcnemarExact,
  minimumDetectableEffect,
  pairedPermutationTest,
  signTest,
} from '../../../src/scorers/stats/index.ts'
import { bigChoose, ratio } from './exact-arithmetic.ts'

describe('mcnemarExact', () => {
  it('matches p-values worked from the binomial, exactly (they are dyadic fractions)', () => {
    // b=0, c=8: 2·C(8,0)/2^8 = 2/256 = 0.0078125.
    expect(mcnemarExact(0, 8)).toBe(0.0078125)
    // b=1, c=7: 2·(C(8,0) + C(8,1))/2^8 = 2·9/256 = 0.0703125.
    expect(mcnemarExact(1, 7)).toBe(0.0703125)
    expect(mcnemarExact(7, 1)).toBe(0.0703125)
    // b=3, c=10: 2·(1 + 13 + 78 + 286)/2^13 = 756/8192.
    expect(mcnemarExact(3, 10)).toBe(756 / 8192)
    // b=2, c=2: 2·(1 + 4 + 6)/16 = 22/16, capped at 1.
    expect(mcnemarExact(2, 2)).toBe(1)
    expect(mcnemarExact(0, 0)).toBe(1)
  })

  it('matches an exact big-integer sum and scipy for larger counts', () => {
    // b=40, c=70: 2·Σ_{i≤40} C(110, i)/2^110; scipy 1.17.1 binomtest(40, 110).pvalue = 0.005447429511444476.
    let sum = 0n
    for (let i = 0; i <= 40; i++) sum += bigChoose(110, i)
    const exact = 2 * ratio(sum, 1n << 110n)
    expect(mcnemarExact(40, 70)).toBeCloseTo(exact, 14)
    expect(mcnemarExact(40, 70)).toBeCloseTo(0.005447429511444476, 14)
  })

  it('rejects negative or fractional counts', () => {
    expect(() => mcnemarExact(-1, 3)).toThrow(RangeError)
    expect(() => mcnemarExact(1.5, 3)).toThrow(RangeError)
  })
})

describe('signTest', () => {
  it('matches small cases worked by hand, dropping zeros', () => {
    // Five positives: 2·(1/2)^5 = 0.0625.
    expect(signTest([1, 2, 3, 4, 5])).toBe(0.0625)
    // Six negatives: 2/64 = 0.03125.
    expect(signTest([-1, -2, -3, -4, -5, -6])).toBe(0.03125)
    // [1, −1, 2, 0, 3]: zero dropped → 3 positive, 1 negative of 4: 2·(C(4,0) + C(4,1))/16 = 10/16.
    expect(signTest([1, -1, 2, 0, 3])).toBe(0.625)
    // Only magnitudes differ, signs balance: p = 1.
    expect(signTest([0.5, -10, 0.1, -0.2])).toBe(1)
  })

  it('is 1 with no nonzero deltas', () => {
    expect(signTest([])).toBe(1)
    expect(signTest([0, 0, 0])).toBe(1)
  })
})

describe('pairedPermutationTest', () => {
  it('enumerates tiny cases exactly', () => {
    // [1, 2, 3]: of the 8 sums ±1 ±2 ±3, only +6 and −6 reach |6|: p = 2/8.
    expect(pairedPermutationTest([1, 2, 3], { seed: 1 })).toEqual({ pValue: 0.25, exact: true })
    // [3, −1, 2, 0]: zero dropped; sums ±3 ±1 ±2 ∈ {±6, ±4, ±2, 0, 0}; observed 4, and |S| ≥ 4 for
    // 6, 4, −4, −6: p = 4/8.
    expect(pairedPermutationTest([3, -1, 2, 0], { seed: 1 })).toEqual({ pValue: 0.5, exact: true })
    // [1, 1, 1, 1]: only all-plus and all-minus reach |4|: 2/16.
    expect(pairedPermutationTest([1, 1, 1, 1], { seed: 1 }).pValue).toBe(0.125)
  })

  it('counts ties that differ from the observed mean only by rounding', () => {
    // [0.1, 0.2, −0.3, 0.6] is ±1 ±2 ±3 ±6 tenths with observed sum 6; exactly, 10 of 16 patterns have
    // |S| ≥ 6 (12, 10, 8, 6, 6 and their negatives). In floats two of those ties come out at
    // 0.5999999999999999 against an observed 0.6000000000000001, and only the tolerance keeps them.
    expect(pairedPermutationTest([0.1, 0.2, -0.3, 0.6], { seed: 1 })).toEqual({ pValue: 0.625, exact: true })
  })

  it('gives p = 1 when there is nothing to test', () => {
    expect(pairedPermutationTest([], { seed: 1 })).toEqual({ pValue: 1, exact: true })
    expect(pairedPermutationTest([0, 0], { seed: 1 })).toEqual({ pValue: 1, exact: true })
  })

  it('switches to Monte Carlo above 16 nonzero deltas, reproducibly and close to the exact p', () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => (i % 3) - 0.5)
    expect(pairedPermutationTest(sixteen, { seed: 1 }).exact).toBe(true)
    // Zeros do not count towards the 16: they have no sign to flip.
    expect(pairedPermutationTest([...sixteen, 0, 0, 0], { seed: 1 }).exact).toBe(true)
    expect(pairedPermutationTest([...sixteen, 2], { seed: 1 }).exact).toBe(false)
    // 20 integer deltas, so the brute-force reference over all 2^20 patterns is exact arithmetic.
    const deltas = [3, 1, -2, 4, 0, 2, 1, -1, 5, 2, 3, -3, 1, 2, 0, 4, -1, 2, 1, 3, 2, -2]
    const nonzero = deltas.filter((d) => d !== 0)
    expect(nonzero).toHaveLength(20)
    const observed = Math.abs(nonzero.reduce((a, b) => a + b, 0))
    let extreme = 0
    for (let mask = 0; mask < 2 ** 20; mask++) {
      let s = 0
      for (let i = 0; i < 20; i++) s += (mask >>> i) & 1 ? -nonzero[i]! : nonzero[i]!
      if (Math.abs(s) >= observed) extreme++
    }
    const exactP = extreme / 2 ** 20
    const first = pairedPermutationTest(deltas, { seed: 77, resamples: 20_000 })
    expect(first.exact).toBe(false)
    expect(pairedPermutationTest(deltas, { seed: 77, resamples: 20_000 })).toEqual(first)
    expect(pairedPermutationTest(deltas, { seed: 78, resamples: 20_000 }).pValue).not.toBe(first.pValue)
    // Four binomial standard errors of a 20 000-draw estimate.
    expect(Math.abs(first.pValue - exactP)).toBeLessThan(4 * Math.sqrt((exactP * (1 - exactP)) / 20_000))
  })

  it('uses the (count + 1)/(B + 1) correction, so a Monte Carlo p is never 0', () => {
    // 17 equal deltas: only the two all-same-sign patterns reach the observed |mean|, a chance of 2^-16 per
    // draw, so with 100 draws almost surely none does and p = (0 + 1)/(100 + 1).
    const result = pairedPermutationTest(new Array<number>(17).fill(1), { seed: 4, resamples: 100 })
    expect(result).toEqual({ pValue: 1 / 101, exact: false })
  })

  it('bounds the Monte Carlo work', () => {
    const deltas = new Array<number>(20).fill(1)
    expect(() => pairedPermutationTest(deltas, { seed: 1, resamples: 100_001 })).toThrow(RangeError)
    expect(() => pairedPermutationTest(deltas, { seed: 1, resamples: 0 })).toThrow(RangeError)
    expect(() => pairedPermutationTest([1, Number.NaN], { seed: 1 })).toThrow(RangeError)
  })
})

describe('minimumDetectableEffect', () => {
  it('matches (t_{1−α/2, n−1} + t_{power, n−1})·sd/√n', () => {
    // n = 11, sd = 1, defaults α = 0.05, power = 0.8: t_{0.975,10} = 2.2281388519862742 and
    // t_{0.8,10} = 0.87905782855058886 (mpmath, 40 digits) → 3.1071966805368631/√11 = 0.93685504901623343.
    expect(minimumDetectableEffect(1, 11)).toBeCloseTo(0.93685504901623343, 12)
    // power 0.9 from the NIST table: (2.228 + 1.372)/√11 = 1.0854, to the table's precision.
    expect(minimumDetectableEffect(1, 11, { power: 0.9 })).toBeCloseTo(1.0854, 3)
    // α = 0.1, power 0.95, df = 10: both quantiles are t_{0.95,10} = 1.812 (NIST) → 2·1.812·2.5/√11.
    expect(minimumDetectableEffect(2.5, 11, { alpha: 0.1, power: 0.95 })).toBeCloseTo(
      (2 * 1.812 * 2.5) / Math.sqrt(11),
      2,
    )
  })

  it('scales linearly with sd, shrinks with n, and is null for n < 2', () => {
    expect(minimumDetectableEffect(3, 30)).toBeCloseTo(3 * minimumDetectableEffect(1, 30)!, 14)
    expect(minimumDetectableEffect(1, 100)!).toBeLessThan(minimumDetectableEffect(1, 30)!)
    expect(minimumDetectableEffect(0, 30)).toBe(0)
    expect(minimumDetectableEffect(1, 1)).toBeNull()
    expect(minimumDetectableEffect(1, 0)).toBeNull()
  })

  it('rejects invalid inputs', () => {
    expect(() => minimumDetectableEffect(-1, 10)).toThrow(RangeError)
    expect(() => minimumDetectableEffect(1, 10.5)).toThrow(RangeError)
    expect(() => minimumDetectableEffect(1, 10, { alpha: 0 })).toThrow(RangeError)
    expect(() => minimumDetectableEffect(1, 10, { power: 1 })).toThrow(RangeError)
  })
})
