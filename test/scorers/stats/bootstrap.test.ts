import { describe, expect, it } from 'vitest'
import {
  bootstrapInterval,
  mean,
  percentile,
  seededRandom,
  tInterval,
} from '../../../src/scorers/stats/index.ts'

const SAMPLE = [0.2, 0.9, 0.4, 0.4, 1, 0, 0.7, 0.55, 0.3, 0.8]

describe('bootstrapInterval', () => {
  it('is deterministic for a fixed seed and changes with the seed', () => {
    const a = bootstrapInterval(SAMPLE, { resamples: 2000, seed: 11 })
    const b = bootstrapInterval(SAMPLE, { resamples: 2000, seed: 11 })
    const c = bootstrapInterval(SAMPLE, { resamples: 2000, seed: 12 })
    expect(a).toEqual(b)
    expect(c).not.toEqual(a)
  })

  it('takes type 7 percentiles of the resampled statistics, each computed on a resample of size n', () => {
    const seen: number[] = []
    const interval = bootstrapInterval(SAMPLE, {
      resamples: 999,
      seed: 3,
      confidence: 0.9,
      statistic: (xs) => {
        expect(xs).toHaveLength(SAMPLE.length)
        for (const x of xs) expect(SAMPLE).toContain(x)
        // A distinct offset per resample breaks the ties among resampled means, so interpolating (type 7)
        // and picking an order statistic (nearest rank) give visibly different answers.
        const value = mean(xs)! + seen.length * 1e-7
        seen.push(value)
        return value
      },
    })!
    expect(seen).toHaveLength(999)
    const sorted = [...seen].sort((a, b) => a - b)
    // h = 998 · 0.05 = 49.9: strictly between the order statistics at 49 and 50.
    expect(interval.lower).toBeGreaterThan(sorted[49]!)
    expect(interval.lower).toBeLessThan(sorted[50]!)
    expect(interval.lower).toBeCloseTo(percentile(seen, 0.05)!, 12)
    expect(interval.upper).toBeCloseTo(percentile(seen, 0.95)!, 12)
  })

  it('agrees with the t-interval on a large sample, to 5% of the width', () => {
    // For n = 2000 the sampling distribution of the mean is all but normal, so both intervals estimate the
    // same thing; the remaining gap is Monte Carlo noise (≈ 0.7% of the width at 10 000 resamples).
    const random = seededRandom(20240601)
    const values = Array.from({ length: 2000 }, () => random())
    const t = tInterval(values)!
    const boot = bootstrapInterval(values, { resamples: 10_000, seed: 5 })!
    const width = t.upper - t.lower
    expect(Math.abs(boot.lower - t.lower)).toBeLessThan(0.05 * width)
    expect(Math.abs(boot.upper - t.upper)).toBeLessThan(0.05 * width)
  })

  it('narrows as confidence drops and supports other statistics', () => {
    const wide = bootstrapInterval(SAMPLE, { resamples: 2000, seed: 1, confidence: 0.95 })!
    const narrow = bootstrapInterval(SAMPLE, { resamples: 2000, seed: 1, confidence: 0.5 })!
    expect(narrow.upper - narrow.lower).toBeLessThan(wide.upper - wide.lower)
    const constant = bootstrapInterval([4, 4, 4], {
      resamples: 100,
      seed: 1,
      statistic: (xs) => Math.max(...xs),
    })
    expect(constant).toEqual({ lower: 4, upper: 4 })
  })

  it('is null below two values', () => {
    expect(bootstrapInterval([1], { resamples: 100, seed: 1 })).toBeNull()
    expect(bootstrapInterval([], { resamples: 100, seed: 1 })).toBeNull()
  })

  it('bounds the work and rejects bad options with a clear RangeError', () => {
    expect(() => bootstrapInterval(SAMPLE, { resamples: 100_001, seed: 1 })).toThrow(
      /resamples must be an integer from 1 to 100000/,
    )
    expect(() => bootstrapInterval(SAMPLE, { resamples: 0, seed: 1 })).toThrow(RangeError)
    expect(() => bootstrapInterval(SAMPLE, { resamples: 10.5, seed: 1 })).toThrow(RangeError)
    expect(() => bootstrapInterval(SAMPLE, { resamples: 10, seed: 1, confidence: 1 })).toThrow(RangeError)
    expect(() => bootstrapInterval(SAMPLE, { resamples: 10, seed: 1, statistic: () => Number.NaN })).toThrow(
      RangeError,
    )
  })
})
