/** Descriptive statistics of a sample. Anything undefined for the sample size is `null`. */
import { assertAllFinite, assertClosedUnit } from './validate.ts'

function sum(xs: readonly number[]): number {
  let total = 0
  for (const x of xs) total += x
  return total
}

export function mean(xs: readonly number[]): number | null {
  assertAllFinite('xs', xs)
  if (xs.length === 0) return null
  const total = sum(xs)
  // Values near ±1.8e308 can overflow the running total even though their mean is representable.
  if (!Number.isFinite(total)) return sum(xs.map((x) => x / xs.length))
  return total / xs.length
}

/** The unbiased sample variance (divisor n − 1). */
export function sampleVariance(xs: readonly number[]): number | null {
  if (xs.length < 2) {
    assertAllFinite('xs', xs)
    return null
  }
  const m = mean(xs)!
  // Two passes: the one-pass Σx² − n·m² formula cancels catastrophically when the spread is small next to
  // the mean (scores like 0.9001, 0.9002, …). Subtracting (Σ(x − m))²/n removes what rounding in m leaves.
  let squares = 0
  let residuals = 0
  for (const x of xs) {
    const e = x - m
    squares += e * e
    residuals += e
  }
  return Math.max(0, (squares - (residuals * residuals) / xs.length) / (xs.length - 1))
}

export function standardDeviation(xs: readonly number[]): number | null {
  const variance = sampleVariance(xs)
  return variance === null ? null : Math.sqrt(variance)
}

/** The standard error of the mean, s/√n. */
export function standardError(xs: readonly number[]): number | null {
  const sd = standardDeviation(xs)
  return sd === null ? null : sd / Math.sqrt(xs.length)
}

/** Type 7 interpolation on already-sorted values; shared with the bootstrap, which sorts once. */
export function sortedPercentile(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q
  const below = Math.floor(h)
  const lower = sorted[below]!
  const upper = sorted[Math.min(below + 1, sorted.length - 1)]!
  const fraction = h - below
  const gap = upper - lower
  // The gap form is exact when the neighbours are equal; the weighted form only guards against the gap overflowing.
  return Number.isFinite(gap) ? lower + fraction * gap : (1 - fraction) * lower + fraction * upper
}

/**
 * The q-quantile (q in [0, 1]) by Hyndman & Fan's type 7: linear interpolation between order statistics at
 * h = (n − 1)q, as in NumPy's and R's defaults, so results can be checked against either.
 */
export function percentile(xs: readonly number[], q: number): number | null {
  assertAllFinite('xs', xs)
  assertClosedUnit('q', q)
  if (xs.length === 0) return null
  return sortedPercentile(
    [...xs].sort((a, b) => a - b),
    q,
  )
}
