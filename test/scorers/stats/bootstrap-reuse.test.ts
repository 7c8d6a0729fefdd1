import { describe, expect, it, vi } from 'vitest'

// Every draw of the bootstrap's generator is counted: a reused interval makes none.
const draws = vi.hoisted(() => ({ count: 0 }))
vi.mock('../../../src/scorers/stats/random.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/scorers/stats/random.ts')>()
  return {
    seededRandom: (seed: number) => {
      const next = real.seededRandom(seed)
      return () => {
        draws.count++
        return next()
      }
    },
  }
})

const { bootstrapInterval } = await import('../../../src/scorers/stats/bootstrap.ts')

describe('bootstrapInterval of the mean, asked again for equal values', () => {
  it('draws the resamples once and answers the second time with the identical interval', () => {
    const values = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 0 : 1))
    const before = draws.count
    const first = bootstrapInterval(values, { resamples: 500, seed: 7 })
    const drawn = draws.count - before
    expect(drawn).toBe(500 * values.length)
    const again = bootstrapInterval([...values], { resamples: 500, seed: 7 })
    expect(draws.count - before).toBe(drawn)
    expect(again).toEqual(first)
    expect(again).not.toBe(first)
  })

  it('draws anew when the values, the seed or the confidence differ, or the caller changed its array', () => {
    const values = Array.from({ length: 50 }, (_, i) => i / 50)
    const first = bootstrapInterval(values, { resamples: 300, seed: 3 })!
    for (const [xs, options] of [
      [values, { resamples: 300, seed: 4 }],
      [values, { resamples: 300, seed: 3, confidence: 0.9 }],
      [values.map((v, i) => (i === 49 ? v + 1 : v)), { resamples: 300, seed: 3 }],
    ] as const) {
      const before = draws.count
      bootstrapInterval(xs, options)
      expect(draws.count - before).toBe(300 * 50)
    }
    values[0] = 5
    const before = draws.count
    const changed = bootstrapInterval(values, { resamples: 300, seed: 3 })!
    expect(draws.count - before).toBe(300 * 50)
    expect(changed.upper).toBeGreaterThan(first.upper)
  })
})
