/** Significance tests and power for paired comparisons (two systems scored on the same tasks). */
import { binomialCdf, studentTQuantile } from './distributions.ts'
import { seededRandom } from './random.ts'
import {
  assertAllFinite,
  assertFinite,
  assertNonNegativeInteger,
  assertOpenUnit,
  assertResamples,
} from './validate.ts'

/**
 * Two-sided exact McNemar test on the discordant counts b (only the first system passed) and c (only the
 * second): under H0 each discordant pair goes either way with probability ½, so
 * p = min(1, 2·P[Binomial(b + c, ½) ≤ min(b, c)]).
 */
export function mcnemarExact(b: number, c: number): number {
  assertNonNegativeInteger('b', b)
  assertNonNegativeInteger('c', c)
  if (b + c === 0) return 1
  return Math.min(1, 2 * binomialCdf(Math.min(b, c), b + c, 0.5))
}

/**
 * Two-sided exact sign test. Zero deltas carry no sign and are dropped; what is left is the same binomial
 * test as McNemar's, with positives and negatives as the two discordant counts.
 */
export function signTest(deltas: readonly number[]): number {
  assertAllFinite('deltas', deltas)
  const positives = deltas.filter((d) => d > 0).length
  const negatives = deltas.filter((d) => d < 0).length
  return mcnemarExact(positives, negatives)
}

export interface PermutationTestOptions {
  seed: number
  /** Monte Carlo sign patterns, used only above 16 nonzero deltas; default 10 000, at most 100 000. */
  resamples?: number
}

export interface PermutationTestResult {
  pValue: number
  /** True when all 2^m sign patterns were enumerated, false for a Monte Carlo estimate. */
  exact: boolean
}

/** Up to 2^16 = 65 536 patterns are enumerated: exact and still only about a million additions. */
const MAX_EXACT_NONZERO = 16

/**
 * Two-sided sign-flip permutation test of a zero mean delta: under H0 each delta is as likely to have had
 * the other sign. The p-value is the share of sign patterns whose |mean| is at least the observed one.
 */
export function pairedPermutationTest(
  deltas: readonly number[],
  options: PermutationTestOptions,
): PermutationTestResult {
  const { seed, resamples = 10_000 } = options
  assertAllFinite('deltas', deltas)
  assertResamples('resamples', resamples)
  const random = seededRandom(seed)
  // Zeros flip to themselves, and the mean's divisor n is the same for every pattern, so comparing
  // |Σ nonzero deltas| is equivalent to comparing |mean|.
  const nonzero = deltas.filter((d) => d !== 0)
  const m = nonzero.length
  const signedSum = (flip: (i: number) => boolean): number => {
    let s = 0
    for (let i = 0; i < m; i++) s += flip(i) ? -nonzero[i]! : nonzero[i]!
    return s
  }
  // Sums of the same terms in another sign pattern can differ from an exact tie by rounding; a tolerance of
  // 1e-12 relative to the largest possible |sum| makes such ties count as "at least as extreme".
  const scale = nonzero.reduce((total, d) => total + Math.abs(d), 0)
  const threshold = Math.abs(signedSum(() => false)) - 1e-12 * scale
  if (m <= MAX_EXACT_NONZERO) {
    const patterns = 2 ** m
    let extreme = 0
    for (let mask = 0; mask < patterns; mask++) {
      if (Math.abs(signedSum((i) => ((mask >>> i) & 1) === 1)) >= threshold) extreme++
    }
    return { pValue: extreme / patterns, exact: true }
  }
  let extreme = 0
  for (let r = 0; r < resamples; r++) {
    if (Math.abs(signedSum(() => random() < 0.5)) >= threshold) extreme++
  }
  // Counting the observed pattern as one more draw keeps the estimate a valid p-value (never 0).
  return { pValue: (extreme + 1) / (resamples + 1), exact: false }
}

export interface DetectableEffectOptions {
  /** Two-sided significance level; default 0.05. */
  alpha?: number
  /** Probability of detecting the effect; default 0.8. */
  power?: number
}

/**
 * The smallest mean delta a paired t-test on n pairs detects with the given power:
 * (t_{1−α/2, n−1} + t_{power, n−1}) · sd/√n. Null for n < 2, where there is no variance estimate.
 */
export function minimumDetectableEffect(
  sdOfDeltas: number,
  n: number,
  options: DetectableEffectOptions = {},
): number | null {
  const { alpha = 0.05, power = 0.8 } = options
  assertFinite('sdOfDeltas', sdOfDeltas)
  if (sdOfDeltas < 0) throw new RangeError(`sdOfDeltas must be >= 0, got ${sdOfDeltas}`)
  assertNonNegativeInteger('n', n)
  assertOpenUnit('alpha', alpha)
  assertOpenUnit('power', power)
  if (n < 2) return null
  const df = n - 1
  const critical = -studentTQuantile(alpha / 2, df)
  return ((critical + studentTQuantile(power, df)) * sdOfDeltas) / Math.sqrt(n)
}
