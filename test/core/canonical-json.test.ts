import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../src/core/index.ts'
import { seededRandom } from '../../src/scorers/stats/random.ts'

/** The definition canonicalJson keeps to: JSON.stringify with every object's entries sorted by key. */
function byReplacer(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  )
}

const KEYS = [
  'b',
  'a',
  '10',
  '2',
  '01',
  '-1',
  '1.5',
  '4294967294',
  '4294967295',
  'é',
  'Z',
  '',
  'a b',
  '"q"',
  '\u{1f600}',
]

function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 6 : 9))
  switch (pick) {
    case 0:
      return null
    case 1:
      return random() < 0.5
    case 2:
      return [0, -0, 1.5, -7, 1e21, 2 ** 53, Number.NaN, Infinity][Math.floor(random() * 8)]
    case 3:
      return ['', 'x', 'line\nbreak', 'quote"', '\u2028', '\ud800'][Math.floor(random() * 6)]
    case 4:
      return undefined
    case 5:
      return new Date(Math.floor(random() * 2e12))
    case 6:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1))
    default: {
      const out: Record<string, unknown> = {}
      for (let i = Math.floor(random() * 5); i > 0; i--)
        out[KEYS[Math.floor(random() * KEYS.length)]!] = randomValue(random, depth + 1)
      return out
    }
  }
}

describe('canonicalJson', () => {
  it('writes what JSON.stringify with sorted entries writes, for 5,000 random values', () => {
    const random = seededRandom(7)
    for (let i = 0; i < 5000; i++) {
      const value = randomValue(random, 0)
      expect(canonicalJson(value)).toBe(byReplacer(value))
    }
  })

  it('sorts keys whatever their order and skips absent values as JSON does', () => {
    expect(canonicalJson({ b: 1, a: [undefined, () => 1], c: undefined, d: { z: 0, y: null } })).toBe(
      '{"a":[null,null],"b":1,"d":{"y":null,"z":0}}',
    )
    expect(canonicalJson({ when: { toJSON: () => ({ b: 2, a: 1 }) } })).toBe('{"when":{"a":1,"b":2}}')
  })
})
