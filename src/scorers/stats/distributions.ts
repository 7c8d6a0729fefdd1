/**
 * CDFs and quantiles of the Student t and normal distributions, and the binomial pmf/cdf, all computed
 * exactly from the special functions (no large-sample shortcuts).
 */
import { logBeta, regularizedBetaWithComplement, regularizedGammaP, regularizedGammaQ } from './special.ts'
import { assertClosedUnit, assertFinite, assertNonNegativeInteger, assertOpenUnit } from './validate.ts'

function assertNotNaN(name: string, value: number): void {
  if (Number.isNaN(value)) throw new RangeError(`${name} must be a number, got NaN`)
}

function assertDegreesOfFreedom(df: number): void {
  assertFinite('df', df)
  if (df <= 0) throw new RangeError(`df must be > 0, got ${df}`)
}

/** P[T ≤ t] for Student's t with df > 0 degrees of freedom (df need not be an integer). */
export function studentTCdf(t: number, df: number): number {
  assertNotNaN('t', t)
  assertDegreesOfFreedom(df)
  const t2 = t * t
  if (!Number.isFinite(t2)) return t < 0 ? 0 : 1
  // P[T ≤ −|t|] = ½ I_x(df/2, ½) with x = df/(df + t²); 1 − x is passed as t²/(df + t²) directly because
  // near t = 0 it is tiny and would be lost to rounding if recovered from x.
  const x = df / (df + t2)
  const y = t2 / (df + t2)
  const tail = 0.5 * regularizedBetaWithComplement(x, y, df / 2, 0.5)
  return t < 0 ? tail : 1 - tail
}

/** Hard stop for the bisection; float exhaustion from any bracket is reached well before this. */
const MAX_BISECTIONS = 2200

/** The t with P[T ≤ t] = p, for p in (0, 1), by bracketing and bisecting the exact CDF. */
export function studentTQuantile(p: number, df: number): number {
  assertOpenUnit('p', p)
  assertDegreesOfFreedom(df)
  if (p === 0.5) return 0
  // Solve in the lower tail, where the CDF is computed without cancellation; 1 − p is exact for p > ½.
  if (p > 0.5) return -studentTQuantile(1 - p, df)
  let hi = 0
  let fHi = 0.5
  let lo = -1
  let fLo = studentTCdf(lo, df)
  while (fLo > p) {
    hi = lo
    fHi = fLo
    lo *= 2
    if (!Number.isFinite(lo)) throw new RangeError(`the t quantile for p = ${p}, df = ${df} overflows`)
    fLo = studentTCdf(lo, df)
  }
  // Bisect until lo and hi are adjacent doubles: the answer is then as exact as the CDF allows.
  for (let i = 0; i < MAX_BISECTIONS; i++) {
    const mid = lo / 2 + hi / 2
    if (mid <= lo || mid >= hi) break
    const fMid = studentTCdf(mid, df)
    if (fMid > p) {
      hi = mid
      fHi = fMid
    } else {
      lo = mid
      fLo = fMid
    }
  }
  return p - fLo <= fHi - p ? lo : hi
}

/** P[Z ≤ x] for the standard normal. */
export function normalCdf(x: number): number {
  assertNotNaN('x', x)
  // Φ(x) = ½ erfc(−x/√2), and erfc(z) = Q(½, z²) for z ≥ 0: the upper gamma keeps full relative accuracy
  // in the lower tail, where 1 − (something near 1) would not.
  const halfSquare = 0.5 * x * x
  return x < 0 ? 0.5 * regularizedGammaQ(0.5, halfSquare) : 0.5 + 0.5 * regularizedGammaP(0.5, halfSquare)
}

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI)

function normalDensity(x: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * x * x)
}

/** Abramowitz & Stegun 26.2.23 (Hastings): lower-tail quantile for p ≤ ½ with |error| < 4.5e-4. */
function roughLowerNormalQuantile(p: number): number {
  const t = Math.sqrt(-2 * Math.log(p))
  const numerator = 2.515517 + t * (0.802853 + t * 0.010328)
  const denominator = 1 + t * (1.432788 + t * (0.189269 + t * 0.001308))
  return -(t - numerator / denominator)
}

/** The x with Φ(x) = p, for p in (0, 1). */
export function normalQuantile(p: number): number {
  assertOpenUnit('p', p)
  if (p === 0.5) return 0
  if (p > 0.5) return -normalQuantile(1 - p)
  // Halley's method on the accurate CDF (f = Φ − p, f' = φ, f'' = −xφ) triples the correct digits per step,
  // so two or three steps take the 4.5e-4 start to full precision.
  let x = roughLowerNormalQuantile(p)
  for (let i = 0; i < 8; i++) {
    const u = (normalCdf(x) - p) / normalDensity(x)
    const step = u / (1 + 0.5 * x * u)
    if (!Number.isFinite(step)) break
    x -= step
    if (Math.abs(step) <= 4 * Number.EPSILON * Math.abs(x)) break
  }
  return x
}

function assertBinomialParameters(n: number, p: number): void {
  assertNonNegativeInteger('n', n)
  assertClosedUnit('p', p)
}

/**
 * Up to here C(n, k) is computed directly (C(1000, 500) ≈ 2.7e299 is still finite, and 2^−1000 is still a
 * normal double); beyond it, in log space.
 */
const DIRECT_CHOOSE_MAX_N = 1000

/**
 * C(n, k) by the product ∏ (n − k + i)/i. Each partial product is itself a binomial coefficient, so while
 * the values stay below 2^53 every step is exact: small-n p-values then come out as exact dyadic fractions
 * (0.0703125, not 0.07031249999999999).
 */
function directChoose(n: number, k: number): number {
  const j = Math.min(k, n - k)
  let c = 1
  for (let i = 1; i <= j; i++) c = (c * (n - j + i)) / i
  return c
}

function logChoose(n: number, k: number): number {
  if (k === 0 || k === n) return 0
  // C(n, k) = 1 / ((n + 1) B(k + 1, n − k + 1)); logBeta avoids the cancellation of three large ln Γ values.
  return -Math.log(n + 1) - logBeta(k + 1, n - k + 1)
}

function pmf(k: number, n: number, p: number): number {
  if (p === 0) return k === 0 ? 1 : 0
  if (p === 1) return k === n ? 1 : 0
  if (n <= DIRECT_CHOOSE_MAX_N) {
    const c = directChoose(n, k)
    // Scaling by a power of two is exact, and p = ½ is what the sign and McNemar tests use.
    if (p === 0.5) return c * 2 ** -n
    return Math.exp(Math.log(c) + k * Math.log(p) + (n - k) * Math.log1p(-p))
  }
  // Log space: p^k alone underflows for n in the thousands even when the product with C(n, k) does not.
  return Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p))
}

/** P[X = k] for X ~ Binomial(n, p). */
export function binomialPmf(k: number, n: number, p: number): number {
  if (!Number.isSafeInteger(k)) throw new RangeError(`k must be an integer, got ${k}`)
  assertBinomialParameters(n, p)
  return k < 0 || k > n ? 0 : pmf(k, n, p)
}

/** Above this n the CDF comes from the incomplete beta function instead of a sum of up to n terms. */
const SUMMED_CDF_MAX_N = 10_000

/** P[X ≤ k] for X ~ Binomial(n, p); k may be any real, as the CDF is a step function. */
export function binomialCdf(k: number, n: number, p: number): number {
  assertNotNaN('k', k)
  assertBinomialParameters(n, p)
  const j = Math.floor(k)
  if (j < 0) return 0
  if (j >= n) return 1
  if (p === 0 || p === 1) return p === 0 ? 1 : 0
  // P[X ≤ j] = I_{1−p}(n − j, j + 1): O(√n) work however large n is, at about 1e-12 instead of 1e-15.
  if (n > SUMMED_CDF_MAX_N) return regularizedBetaWithComplement(1 - p, p, n - j, j + 1)
  // Sum whichever side of the mean is the tail, smallest terms first, so a small probability keeps its
  // relative accuracy instead of being computed as 1 minus something close to 1.
  let sum = 0
  if (j < n * p) {
    for (let i = 0; i <= j; i++) sum += pmf(i, n, p)
    return Math.min(1, sum)
  }
  for (let i = n; i > j; i--) sum += pmf(i, n, p)
  return Math.max(0, 1 - sum)
}
