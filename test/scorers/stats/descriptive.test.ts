import { describe, expect, it } from 'vitest'
import {
  mean,
  percentile,
  sampleVariance,
  standardDeviation,
  standardError,
} from '../../../src/scorers/stats/index.ts'

describe('mean, variance, standard deviation, standard error', () => {
  it('match a hand-worked sample', () => {
    // [2, 4, 4, 4, 5, 5, 7, 9]: Σ = 40, mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32;
    // s² = 32/7; s = √(32/7) = 2.138089935299395; SE = s/√8 = √(4/7) = 0.7559289460184544.
    const xs = [2, 4, 4, 4, 5, 5, 7, 9]
    expect(mean(xs)).toBe(5)
    expect(sampleVariance(xs)).toBeCloseTo(32 / 7, 14)
    expect(standardDeviation(xs)).toBeCloseTo(2.138089935299395, 14)
    expect(standardError(xs)).toBeCloseTo(0.7559289460184544, 14)
  })

  it('keeps the variance exact when the spread is tiny next to the mean', () => {
    // 1e9 + [4, 7, 13, 16]: deviations ±3, ±6 from 1e9 + 10, so s² = (9+9+36+36)/3 = 30 exactly. The one-pass
    // formula (Σx² − n·x̄²)/(n − 1) works with Σx² ≈ 4e18, whose rounding step is 512, and gets this wrong.
    expect(sampleVariance([1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16])).toBe(30)
  })

  it('returns null, never NaN, when the sample is too small', () => {
    expect(mean([])).toBeNull()
    expect(sampleVariance([])).toBeNull()
    expect(sampleVariance([3])).toBeNull()
    expect(standardDeviation([3])).toBeNull()
    expect(standardError([3])).toBeNull()
    expect(JSON.stringify({ se: standardError([1]) })).toBe('{"se":null}')
  })

  it('gives zero spread for constant samples and survives values near the double range', () => {
    expect(sampleVariance([0.7, 0.7, 0.7])).toBe(0)
    expect(standardError([0.7, 0.7])).toBe(0)
    expect(mean([1.5e308, 1.5e308, 1.2e308])! / 1e308).toBeCloseTo(1.4, 14)
  })

  it('rejects non-finite values instead of propagating NaN', () => {
    expect(() => mean([1, Number.NaN])).toThrow(RangeError)
    expect(() => sampleVariance([1, Number.POSITIVE_INFINITY, 2])).toThrow(RangeError)
  })
})

describe('percentile (Hyndman–Fan type 7)', () => {
  it('interpolates between order statistics at h = (n − 1)q', () => {
    // [1, 2, 3, 4] at 0.95: h = 3·0.95 = 2.85, so x₍₂₎ + 0.85·(x₍₃₎ − x₍₂₎) = 3 + 0.85 = 3.85 (0-based).
    expect(percentile([1, 2, 3, 4], 0.95)).toBeCloseTo(3.85, 14)
    // [10, 20, 30, 40, 50] at 0.1: h = 0.4 → 10 + 0.4·10 = 14.
    expect(percentile([50, 10, 40, 20, 30], 0.1)).toBeCloseTo(14, 14)
  })

  it('matches NumPy on an unsorted sample with ties', () => {
    // numpy 2.4.6: np.percentile([3, 1, 4, 1, 5, 9, 2, 6], [25, 50, 90]) = [1.75, 3.5, 6.9].
    const xs = [3, 1, 4, 1, 5, 9, 2, 6]
    expect(percentile(xs, 0.25)).toBeCloseTo(1.75, 14)
    expect(percentile(xs, 0.5)).toBeCloseTo(3.5, 14)
    expect(percentile(xs, 0.9)).toBeCloseTo(6.9, 14)
    expect(xs).toEqual([3, 1, 4, 1, 5, 9, 2, 6])
  })

  it('returns the extremes at q = 0 and 1, the value for n = 1, and null when empty', () => {
    expect(percentile([5, -2, 8], 0)).toBe(-2)
    expect(percentile([5, -2, 8], 1)).toBe(8)
    expect(percentile([42], 0.3)).toBe(42)
    expect(percentile([], 0.5)).toBeNull()
    expect(() => percentile([1, 2], 1.5)).toThrow(RangeError)
    expect(() => percentile([1, 2], -0.1)).toThrow(RangeError)
  })
})
