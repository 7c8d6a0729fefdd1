/**
 * Unbiased estimators of pass@k (at least one of k draws succeeds) and pass^k (all k draws succeed) from
 * n trials of which c succeeded, drawing k trials without replacement (Chen et al., 2021, "Evaluating
 * Large Language Models Trained on Code").
 */
import { assertNonNegativeInteger } from './validate.ts'

function assertCounts(n: number, c: number, k: number): void {
  assertNonNegativeInteger('n', n)
  assertNonNegativeInteger('c', c)
  if (c > n) throw new RangeError(`c (${c}) cannot exceed n (${n})`)
  if (!Number.isSafeInteger(k) || k < 1) throw new RangeError(`k must be an integer >= 1, got ${k}`)
}

/** 1 − C(n−c, k)/C(n, k); null when k > n, where k distinct trials cannot be drawn. */
export function passAtK(n: number, c: number, k: number): number | null {
  assertCounts(n, c, k)
  if (k > n) return null
  // Fewer than k failures: every draw of k must contain a success.
  if (n - c < k) return 1
  // C(n−c, k)/C(n, k) = ∏_{i=n−c+1}^{n} (1 − k/i): c factors in (0, 1], where the binomials themselves
  // overflow a double beyond n ≈ 1000.
  let failAll = 1
  for (let i = n - c + 1; i <= n; i++) failAll *= 1 - k / i
  return 1 - failAll
}

/** C(c, k)/C(n, k) = ∏_{i=0}^{k−1} (c−i)/(n−i); null when k > n. */
export function passHatK(n: number, c: number, k: number): number | null {
  assertCounts(n, c, k)
  if (k > n) return null
  // Returned early because the product would run through a zero factor into negative ones and give −0.
  if (c < k) return 0
  let passAll = 1
  for (let i = 0; i < k; i++) passAll *= (c - i) / (n - i)
  return passAll
}
