/** Exact big-integer arithmetic, used by the tests as an independent reference for the float code. */

/** C(n, k) exactly; 0 outside 0 ≤ k ≤ n. */
export function bigChoose(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n
  let c = 1n
  for (let i = 1; i <= k; i++) c = (c * BigInt(n - k + i)) / BigInt(i)
  return c
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length
}

/** num/den (num ≥ 0, den > 0) as a double accurate to about 1e-16, for results above 1e-300. */
export function ratio(num: bigint, den: bigint): number {
  if (num === 0n) return 0
  const shift = Math.max(0, bitLength(den) - bitLength(num) + 64)
  const quotient = Number((num << BigInt(shift)) / den)
  return quotient * 2 ** -Math.floor(shift / 2) * 2 ** -Math.ceil(shift / 2)
}
