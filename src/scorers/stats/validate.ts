/**
 * Argument checks shared by the stats modules. Bad input throws a RangeError instead of flowing on as NaN,
 * because a NaN would only surface much later as a `null` in a JSON report, far from its cause.
 */

export function assertFinite(name: string, value: number): void {
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a finite number, got ${value}`)
}

export function assertAllFinite(name: string, values: readonly number[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (!Number.isFinite(v)) throw new RangeError(`${name}[${i}] must be a finite number, got ${v}`)
  }
}

export function assertNonNegativeInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`)
}

/** For probabilities whose end points have no finite answer (quantiles, confidence levels). */
export function assertOpenUnit(name: string, value: number): void {
  if (!(value > 0 && value < 1))
    throw new RangeError(`${name} must be strictly between 0 and 1, got ${value}`)
}

export function assertClosedUnit(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be between 0 and 1, got ${value}`)
}

/** Monte Carlo loops run on the caller's thread, so their size is capped to keep a report from hanging. */
export const MAX_RESAMPLES = 100_000

export function assertResamples(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_RESAMPLES)
    throw new RangeError(`${name} must be an integer from 1 to ${MAX_RESAMPLES}, got ${value}`)
}
