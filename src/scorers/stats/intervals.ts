/** Confidence intervals for a mean and a proportion, and the cluster-robust standard error of a mean. */
import { mean, standardError } from './descriptive.ts'
import { binomialCdf, normalQuantile, studentTQuantile } from './distributions.ts'
import { assertAllFinite, assertNonNegativeInteger, assertOpenUnit } from './validate.ts'

export interface Interval {
  lower: number
  upper: number
}

/** mean ± t_{(1+confidence)/2, n−1} · SE; null for fewer than two values. */
export function tInterval(xs: readonly number[], confidence = 0.95): Interval | null {
  assertOpenUnit('confidence', confidence)
  const se = standardError(xs)
  if (se === null) return null
  const m = mean(xs)!
  if (se === 0) return { lower: m, upper: m }
  // The upper quantile is taken as minus the lower one: (1 + confidence)/2 rounds to 1 for confidence
  // within an ulp of 1, while (1 − confidence)/2 stays representable.
  const halfWidth = -studentTQuantile((1 - confidence) / 2, xs.length - 1) * se
  return { lower: m - halfWidth, upper: m + halfWidth }
}

/**
 * The Wilson score interval for a binomial proportion, without continuity correction; null when n = 0.
 * Unlike the Wald interval it stays inside [0, 1] and does not collapse to a point at 0 or n successes.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): Interval | null {
  assertNonNegativeInteger('successes', successes)
  assertNonNegativeInteger('n', n)
  if (successes > n) throw new RangeError(`successes (${successes}) cannot exceed n (${n})`)
  assertOpenUnit('confidence', confidence)
  if (n === 0) return null
  const z = -normalQuantile((1 - confidence) / 2)
  const z2 = z * z
  const pHat = successes / n
  const shrink = 1 + z2 / n
  const center = (pHat + z2 / (2 * n)) / shrink
  const halfWidth = (z / shrink) * Math.sqrt((pHat * (1 - pHat)) / n + z2 / (4 * n * n))
  // At 0 and n successes the bound is exactly 0 (or 1) algebraically; rounding would leave ±1e-17 behind.
  return {
    lower: successes === 0 ? 0 : Math.max(0, center - halfWidth),
    upper: successes === n ? 1 : Math.min(1, center + halfWidth),
  }
}

/**
 * The exact one-sided Clopper–Pearson upper bound of a binomial proportion: the p at which seeing `successes` or
 * fewer of n has probability 1 − confidence (the `confidence` quantile of Beta(k + 1, n − k)); null when n = 0.
 * Unlike an interval built from the observed spread, it stays wide when nothing was seen: at 0 of n it is
 * 1 − (1 − confidence)^(1/n), about 3/n at 95 % (the rule of three).
 */
export function clopperPearsonUpper(successes: number, n: number, confidence = 0.95): number | null {
  assertNonNegativeInteger('successes', successes)
  assertNonNegativeInteger('n', n)
  if (successes > n) throw new RangeError(`successes (${successes}) cannot exceed n (${n})`)
  assertOpenUnit('confidence', confidence)
  if (n === 0) return null
  if (successes === n) return 1
  const alpha = 1 - confidence
  if (successes === 0) return -Math.expm1(Math.log(alpha) / n)
  // P[X ≤ k] falls as p rises: bisect until the bracket stops shrinking (about 53 halvings).
  let lo = 0
  let hi = 1
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2
    if (mid === lo || mid === hi) break
    if (binomialCdf(successes, n, mid) > alpha) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/**
 * The cluster-robust (CR1-style, G/(G − 1) corrected) standard error of the mean: with residuals
 * e_i = x_i − x̄, Var = G/(G − 1) · Σ_g (Σ_{i∈g} e_i)² / n². Trials of the same task are correlated, so
 * treating them as independent would understate the uncertainty. Null with fewer than two clusters.
 */
export function clusteredStandardError(
  values: readonly number[],
  clusters: readonly string[],
): number | null {
  assertAllFinite('values', values)
  if (values.length !== clusters.length)
    throw new RangeError(`values (${values.length}) and clusters (${clusters.length}) differ in length`)
  const m = mean(values)
  if (m === null) return null
  const residualSums = new Map<string, number>()
  values.forEach((x, i) => {
    const cluster = clusters[i]!
    residualSums.set(cluster, (residualSums.get(cluster) ?? 0) + (x - m))
  })
  const g = residualSums.size
  if (g < 2) return null
  let sumOfSquares = 0
  for (const s of residualSums.values()) sumOfSquares += s * s
  const n = values.length
  return Math.sqrt((g / (g - 1)) * (sumOfSquares / (n * n)))
}
