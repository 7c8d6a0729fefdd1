/**
 * Seeded uniform random numbers, so bootstrap and permutation results, and a dataset's shuffled selection, can be
 * reproduced from a report.
 *
 * The generator is Tommy Ettinger's mulberry32 (2017, public domain): a 32-bit Weyl sequence
 * (state += 0x6D2B79F5) whose value is scrambled by a MurmurHash3-style xorshift-multiply finaliser. It is
 * small, fast and passes gjrand, and its short period (2^32) is ample for at most a few million draws a
 * call. It is not for cryptography.
 */

const WEYL_INCREMENT = 0x6d2b79f5
const TWO_TO_32 = 2 ** 32

/** A stream of uniform numbers in [0, 1); the same seed (an integer, taken mod 2^32) gives the same stream. */
export function seededRandom(seed: number): () => number {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`)
  // `| 0` reduces mod 2^32 exactly (ToInt32), and keeps the state wrapping like the reference's uint32.
  let state = seed | 0
  return () => {
    state = (state + WEYL_INCREMENT) | 0
    let z = state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return ((z ^ (z >>> 14)) >>> 0) / TWO_TO_32
  }
}
