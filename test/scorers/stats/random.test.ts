import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../../src/scorers/stats/index.ts'

/**
 * mulberry32 transcribed from Tommy Ettinger's reference C (uint32 state; z = state += 0x6D2B79F5;
 * z = (z ^ z >> 15) * (z | 1); z ^= z + (z ^ z >> 7) * (z | 61); return z ^ z >> 14) in BigInt arithmetic
 * mod 2^32, independent of the Math.imul / `| 0` tricks the implementation relies on.
 */
function referenceStream(seed: number, count: number): number[] {
  const mask = (1n << 32n) - 1n
  let state = BigInt(seed) & mask
  const out: number[] = []
  for (let i = 0; i < count; i++) {
    state = (state + 0x6d2b79f5n) & mask
    let z = state
    z = ((z ^ (z >> 15n)) * (z | 1n)) & mask
    z = z ^ ((z + (z ^ (z >> 7n)) * (z | 61n)) & mask)
    z = z ^ (z >> 14n)
    out.push(Number(z) / 2 ** 32)
  }
  return out
}

function take(random: () => number, count: number): number[] {
  return Array.from({ length: count }, () => random())
}

describe('seededRandom (mulberry32)', () => {
  it('matches a big-integer transcription of the reference algorithm', () => {
    for (const seed of [0, 1, 42, 123456789, 2 ** 31, 2 ** 32 - 1, -7]) {
      expect(take(seededRandom(seed), 2000)).toEqual(referenceStream(seed, 2000))
    }
  })

  it('is deterministic per seed, differs across seeds, and reduces seeds mod 2^32', () => {
    expect(take(seededRandom(2024), 50)).toEqual(take(seededRandom(2024), 50))
    expect(take(seededRandom(2024), 50)).not.toEqual(take(seededRandom(2025), 50))
    expect(take(seededRandom(2 ** 32 + 5), 20)).toEqual(take(seededRandom(5), 20))
    expect(take(seededRandom(-1), 20)).toEqual(take(seededRandom(2 ** 32 - 1), 20))
  })

  it('returns values in [0, 1) that pass a chi-square uniformity check', () => {
    const random = seededRandom(99)
    const bins = new Array<number>(20).fill(0)
    const draws = 100_000
    let sum = 0
    let min = 1
    let max = 0
    for (let i = 0; i < draws; i++) {
      const u = random()
      min = Math.min(min, u)
      max = Math.max(max, u)
      sum += u
      bins[Math.floor(u * 20)]!++
    }
    expect(min).toBeGreaterThanOrEqual(0)
    expect(max).toBeLessThan(1)
    const expected = draws / 20
    const chiSquare = bins.reduce((total, count) => total + (count - expected) ** 2 / expected, 0)
    // χ²(19) upper 0.1% point is 43.82; the stream is fixed by the seed, so this cannot flake.
    expect(chiSquare).toBeLessThan(43.82)
    expect(Math.abs(sum / draws - 0.5)).toBeLessThan(0.005)
  })

  it('rejects seeds that are not integers', () => {
    expect(() => seededRandom(1.5)).toThrow(RangeError)
    expect(() => seededRandom(Number.NaN)).toThrow(RangeError)
  })
})
