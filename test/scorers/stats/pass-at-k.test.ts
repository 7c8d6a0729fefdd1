import { describe, expect, it } from 'vitest'
import { passAtK, passHatK } from '../../../src/scorers/stats/index.ts'
import { bigChoose, ratio } from './exact-arithmetic.ts'

describe('passAtK', () => {
  it('matches hand-worked values of 1 − C(n−c, k)/C(n, k)', () => {
    // n=10, c=3, k=1: 1 − C(7,1)/C(10,1) = 1 − 7/10 = 0.3.
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15)
    // n=10, c=3, k=5: 1 − C(7,5)/C(10,5) = 1 − 21/252 = 0.91666…
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 15)
    // n=5, c=2, k=2: 1 − C(3,2)/C(5,2) = 1 − 3/10 = 0.7.
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 15)
    // n − c < k: n=10, c=8, k=3 — only two failures, so any 3 draws include a success.
    expect(passAtK(10, 8, 3)).toBe(1)
  })

  it('handles c = 0, c = n and n = 1', () => {
    expect(passAtK(10, 0, 4)).toBe(0)
    expect(passAtK(10, 10, 4)).toBe(1)
    expect(passAtK(1, 0, 1)).toBe(0)
    expect(passAtK(1, 1, 1)).toBe(1)
  })

  it('reduces to the success rate c/n at k = 1', () => {
    for (const [n, c] of [
      [7, 3],
      [100, 37],
      [200, 199],
    ] as const)
      expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 14)
  })

  it('is null (JSON null) when k > n', () => {
    expect(passAtK(3, 1, 5)).toBeNull()
    expect(JSON.stringify({ passAt5: passAtK(3, 1, 5) })).toBe('{"passAt5":null}')
  })

  it('agrees with exact big-integer binomials for n up to 200', () => {
    for (const n of [2, 5, 13, 50, 127, 200]) {
      for (let c = 0; c <= n; c += Math.max(1, Math.floor(n / 9))) {
        for (let k = 1; k <= n; k += Math.max(1, Math.floor(n / 7))) {
          const exact = 1 - ratio(bigChoose(n - c, k), bigChoose(n, k))
          expect(Math.abs(passAtK(n, c, k)! - exact), `n=${n} c=${c} k=${k}`).toBeLessThan(1e-12)
        }
      }
    }
  })

  it('rejects non-integer or out-of-range counts', () => {
    expect(() => passAtK(10, 11, 1)).toThrow(RangeError)
    expect(() => passAtK(10, -1, 1)).toThrow(RangeError)
    expect(() => passAtK(10, 3, 0)).toThrow(RangeError)
    expect(() => passAtK(10, 3, 1.5)).toThrow(RangeError)
    expect(() => passAtK(10.5, 3, 1)).toThrow(RangeError)
  })
})

describe('passHatK', () => {
  it('matches hand-worked values of C(c, k)/C(n, k)', () => {
    // n=10, c=3, k=2: C(3,2)/C(10,2) = 3/45.
    expect(passHatK(10, 3, 2)).toBeCloseTo(3 / 45, 15)
    // n=5, c=4, k=3: C(4,3)/C(5,3) = 4/10.
    expect(passHatK(5, 4, 3)).toBeCloseTo(0.4, 15)
    // k = 1 is the success rate.
    expect(passHatK(8, 6, 1)).toBeCloseTo(0.75, 15)
  })

  it('is 0 (not −0) when c < k, 1 when c = n, and null when k > n', () => {
    // Beyond i = c the factors (c − i)/(n − i) turn negative, which would make the product −0 (c=2, k=4;
    // c=0, k=2); toBe distinguishes −0 from 0.
    expect(passHatK(10, 2, 4)).toBe(0)
    expect(passHatK(10, 0, 2)).toBe(0)
    expect(passHatK(10, 0, 1)).toBe(0)
    expect(passHatK(10, 10, 7)).toBe(1)
    expect(passHatK(4, 4, 5)).toBeNull()
    expect(JSON.stringify([passHatK(4, 4, 5)])).toBe('[null]')
  })

  it('agrees with exact big-integer binomials for n up to 200', () => {
    for (const n of [2, 5, 13, 50, 127, 200]) {
      for (let c = 0; c <= n; c += Math.max(1, Math.floor(n / 9))) {
        for (let k = 1; k <= n; k += Math.max(1, Math.floor(n / 7))) {
          const exact = ratio(bigChoose(c, k), bigChoose(n, k))
          const actual = passHatK(n, c, k)!
          expect(Math.abs(actual - exact), `n=${n} c=${c} k=${k}`).toBeLessThanOrEqual(
            1e-12 * Math.max(exact, 1e-300),
          )
        }
      }
    }
  })
})
