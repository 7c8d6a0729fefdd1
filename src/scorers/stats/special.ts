/**
 * Special functions behind the distributions: log-gamma, log-beta, the regularized incomplete beta and
 * gamma functions. Domain errors throw a RangeError; NaN is never returned for valid input.
 */
import { assertClosedUnit, assertFinite } from './validate.ts'

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI)

/**
 * Above this point the Stirling series below is already accurate to well under 1e-16 (its first omitted
 * term, B18 / (18·17·z^17), is about 2e-18 at z = 10); smaller arguments are shifted up by recurrence.
 */
const STIRLING_MIN = 10

/** B_2k / (2k(2k − 1)) for k = 1..8, from the Bernoulli numbers B2..B16. */
const STIRLING_COEFFICIENTS = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510].map(
  (bernoulli, i) => bernoulli / ((2 * i + 2) * (2 * i + 1)),
)

/**
 * The Stirling-series remainder δ(z) = lnΓ(z) − [(z − ½)ln z − z + ½ln 2π], for z ≥ STIRLING_MIN. Kept
 * separate so log-beta can cancel the large leading terms analytically instead of subtracting big numbers.
 */
function stirlingCorrection(z: number): number {
  const inverseSquare = 1 / (z * z)
  let sum = 0
  for (let k = STIRLING_COEFFICIENTS.length - 1; k >= 0; k--)
    sum = sum * inverseSquare + STIRLING_COEFFICIENTS[k]!
  return sum / z
}

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  assertFinite('x', x)
  if (x <= 0) throw new RangeError(`logGamma is only defined here for x > 0, got ${x}`)
  if (x >= STIRLING_MIN) {
    const value = (x - 0.5) * Math.log(x) - x + HALF_LOG_2PI + stirlingCorrection(x)
    if (!Number.isFinite(value)) throw new RangeError(`logGamma(${x}) overflows a double`)
    return value
  }
  // Γ(x) = Γ(x + N) / (x(x+1)…(x+N−1)); ln x is taken apart from the product so a subnormal x keeps its precision.
  let shifted = x + 1
  let product = 1
  while (shifted < STIRLING_MIN) {
    product *= shifted
    shifted += 1
  }
  return logGamma(shifted) - Math.log(x) - Math.log(product)
}

/** ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b), for a, b > 0. */
export function logBeta(a: number, b: number): number {
  assertFinite('a', a)
  assertFinite('b', b)
  if (a <= 0 || b <= 0) throw new RangeError(`logBeta needs a, b > 0, got a = ${a}, b = ${b}`)
  const p = Math.min(a, b)
  const q = Math.max(a, b)
  const s = p + q
  // For large arguments the three ln Γ values are huge and nearly cancel (ln Γ(5e7) ≈ 8e8 would cost 1e-7 of
  // relative accuracy); writing the Stirling leading terms as logs of ratios keeps every term small.
  if (p >= STIRLING_MIN) {
    return (
      (p - 0.5) * Math.log(p / s) -
      q * Math.log1p(p / q) -
      0.5 * Math.log(q) +
      HALF_LOG_2PI +
      stirlingCorrection(p) +
      stirlingCorrection(q) -
      stirlingCorrection(s)
    )
  }
  if (q >= STIRLING_MIN) {
    // ln Γ(q) − ln Γ(q + p) with the same cancellation done by hand.
    const logGammaRatio =
      -(q - 0.5) * Math.log1p(p / q) - p * Math.log(s) + p + stirlingCorrection(q) - stirlingCorrection(s)
    return logGamma(p) + logGammaRatio
  }
  return logGamma(p) + logGamma(q) - logGamma(s)
}

/** Convergence threshold of the continued fractions: a few ulps, since |Δ − 1| can stall at one ulp above 1. */
const CF_EPSILON = 1e-15
/** Numerators and denominators that hit 0 exactly are nudged off it (modified Lentz). */
const CF_TINY = 1e-300

/**
 * b0 + a1/(b1 + a2/(b2 + …)) by the modified Lentz method. The iteration cap only guards against a bug:
 * the fractions used here converge in O(√max(a, b)) steps.
 */
function continuedFraction(
  b0: number,
  numerator: (j: number) => number,
  denominator: (j: number) => number,
  maxIterations: number,
): number {
  let f = b0 === 0 ? CF_TINY : b0
  let c = f
  let d = 0
  for (let j = 1; j <= maxIterations; j++) {
    const aj = numerator(j)
    const bj = denominator(j)
    d = bj + aj * d
    if (d === 0) d = CF_TINY
    c = bj + aj / c
    if (c === 0) c = CF_TINY
    d = 1 / d
    const delta = c * d
    f *= delta
    if (Math.abs(delta - 1) < CF_EPSILON) return f
  }
  throw new Error(`continued fraction did not converge in ${maxIterations} iterations`)
}

function iterationCap(a: number, b: number): number {
  return 1000 + Math.ceil(20 * Math.sqrt(Math.max(a, b)))
}

/** ln x when only x or only 1 − x may be accurate: near 1 the log is taken of the small complement. */
function logOf(x: number, complement: number): number {
  return x > 0.5 ? Math.log1p(-complement) : Math.log(x)
}

/**
 * I_x(a, b) from its continued fraction, without the symmetry switch.
 *
 * The textbook fraction I_x = x^a y^b / (a B(a, b)) · 1/(1 + d1/(1 + d2/(1 + …))), with
 * d_{2m+1} = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and d_{2m} = m(b−m)x / ((a+2m−1)(a+2m)),
 * loses digits near the mean of Beta(a, b): there 1 + d1 ≈ 0, and for the t distribution with df = 1e8 only
 * about eight digits survive. Its odd contraction
 *   1 + d1 − d1 d2 / (1 + d2 + d3 − d3 d4 / (1 + d4 + d5 − …))
 * has the same value, and every partial denominator 1 + d_{2j} + d_{2j+1} (and 1 + d1) has a closed form in
 * which the cancellation is done algebraically, so it is evaluated instead.
 */
function betaFraction(x: number, y: number, a: number, b: number): number {
  const d = (j: number): number => {
    const m = Math.floor(j / 2)
    return j % 2 === 1
      ? (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
      : (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m))
  }
  // 1 + d1 = (1 + λ)/(a + 1) with λ = a − (a + b)x = (a + b)y − b; take the form without the large cancelling pair.
  const lambda = a > b ? (a + b) * y - b : a - (a + b) * x
  const fraction = continuedFraction(
    (1 + lambda) / (a + 1),
    (j) => -d(2 * j - 1) * d(2 * j),
    (j) => {
      // 1 + d_{2j} + d_{2j+1} = 1 + x·D = P − y·D, where P = 1 + D simplifies to the expression below.
      const slope =
        ((j * (b - j)) / (a + 2 * j - 1) - ((a + j) * (a + b + j)) / (a + 2 * j + 1)) / (a + 2 * j)
      if (x <= 0.5) return 1 + x * slope
      const atOne = (a * (2 * j + 1 - b) + b + 2 * j * j - 1) / ((a + 2 * j - 1) * (a + 2 * j + 1))
      return atOne - y * slope
    },
    iterationCap(a, b),
  )
  const logFront = a * logOf(x, y) + b * logOf(y, x) - logBeta(a, b)
  return Math.exp(logFront) / (a * fraction)
}

/**
 * I_x(a, b) given both x and y = 1 − x. Callers that know y more accurately than 1 − x (the t distribution
 * near t = 0, where y = t²/(ν + t²) is tiny) pass it in; computing it by subtraction would lose digits.
 */
export function regularizedBetaWithComplement(x: number, y: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (y <= 0) return 1
  // The fraction converges fast only left of the mean of the Beta(a, b) distribution; beyond it, use the
  // symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
  return x > (a + 1) / (a + b + 2) ? 1 - betaFraction(y, x, b, a) : betaFraction(x, y, a, b)
}

/** The regularized incomplete beta function I_x(a, b), for x in [0, 1] and a, b > 0. */
export function regularizedBeta(x: number, a: number, b: number): number {
  assertClosedUnit('x', x)
  assertFinite('a', a)
  assertFinite('b', b)
  if (a <= 0 || b <= 0) throw new RangeError(`regularizedBeta needs a, b > 0, got a = ${a}, b = ${b}`)
  return regularizedBetaWithComplement(x, 1 - x, a, b)
}

function assertGammaArguments(a: number, x: number): void {
  assertFinite('a', a)
  if (!(a > 0)) throw new RangeError(`the incomplete gamma function needs a > 0, got ${a}`)
  if (!(x >= 0)) throw new RangeError(`the incomplete gamma function needs x >= 0, got ${x}`)
}

/** x^a e^−x / Γ(a), the factor shared by the series and the fraction, in log space to avoid overflow. */
function gammaFront(a: number, x: number): number {
  return Math.exp(a * Math.log(x) - x - logGamma(a))
}

/** P(a, x) by its power series; converges quickly for x < a + 1. */
function lowerGammaSeries(a: number, x: number): number {
  // P(a, x) = x^a e^−x / Γ(a + 1) · Σ_n x^n / ((a+1)(a+2)…(a+n)).
  let term = 1
  let sum = 1
  for (let n = 1; n <= iterationCap(a, x); n++) {
    term *= x / (a + n)
    sum += term
    if (term < sum * Number.EPSILON) return (gammaFront(a, x) / a) * sum
  }
  throw new Error(`incomplete gamma series did not converge for a = ${a}, x = ${x}`)
}

/** Q(a, x) by Legendre's continued fraction; converges quickly for x ≥ a + 1. */
function upperGammaFraction(a: number, x: number): number {
  // Q(a, x) = x^a e^−x / Γ(a) · 1/(x+1−a − 1(1−a)/(x+3−a − 2(2−a)/(x+5−a − …))).
  const fraction = continuedFraction(
    x + 1 - a,
    (j) => -j * (j - a),
    (j) => x + 2 * j + 1 - a,
    iterationCap(a, x),
  )
  return gammaFront(a, x) / fraction
}

/** The regularized lower incomplete gamma function P(a, x) = γ(a, x)/Γ(a). */
export function regularizedGammaP(a: number, x: number): number {
  assertGammaArguments(a, x)
  if (x === 0) return 0
  if (x === Infinity) return 1
  return x < a + 1 ? lowerGammaSeries(a, x) : 1 - upperGammaFraction(a, x)
}

/** The regularized upper incomplete gamma function Q(a, x) = 1 − P(a, x), accurate in the far tail. */
export function regularizedGammaQ(a: number, x: number): number {
  assertGammaArguments(a, x)
  if (x === 0) return 1
  if (x === Infinity) return 0
  return x < a + 1 ? 1 - lowerGammaSeries(a, x) : upperGammaFraction(a, x)
}
