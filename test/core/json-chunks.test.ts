import { describe, expect, it } from 'vitest'
import { jsonChunks } from '../../src/core/index.ts'
import { seededRandom } from '../../src/scorers/stats/index.ts'

/** Nested values of every kind JSON.stringify treats apart: omitted keys, nulls in arrays, toJSON, empty containers. */
function randomValue(random: () => number, depth: number): unknown {
  const r = random()
  if (depth > 4 || r < 0.3) {
    const leaves = [
      0,
      -0,
      1.5e300,
      NaN,
      Infinity,
      'text',
      'quote " and \\ and \n and </script>',
      '',
      true,
      false,
      null,
      undefined,
      () => 1,
      new Date(Date.UTC(2026, 0, 31)),
      'ü€😀',
    ]
    return leaves[Math.floor(random() * leaves.length)]
  }
  if (r < 0.6) return Array.from({ length: Math.floor(random() * 6) }, () => randomValue(random, depth + 1))
  if (r < 0.65) return { toJSON: (key: string) => ({ key, nested: [1, { a: undefined }] }) }
  const object: Record<string, unknown> = {}
  for (let i = 0; i < Math.floor(random() * 6); i++)
    object[`k${i}${random() < 0.1 ? '"' : ''}`] = randomValue(random, depth + 1)
  return object
}

describe('jsonChunks', () => {
  it('joins to the bytes of JSON.stringify, compact and indented, for values of every kind', () => {
    const random = seededRandom(20261203)
    for (let i = 0; i < 2000; i++) {
      const value = randomValue(random, 0)
      if (value === undefined || typeof value === 'function') continue
      expect([...jsonChunks(value, { chunkChars: 7 })].join('')).toBe(JSON.stringify(value))
      expect([...jsonChunks(value, { indent: true, chunkChars: 7 })].join('')).toBe(
        JSON.stringify(value, null, 2),
      )
      expect([...jsonChunks(value, { indent: true, prefix: '    ' })].join('')).toBe(
        JSON.stringify(value, null, 2).replaceAll('\n', '\n    '),
      )
    }
  })

  it('agrees with JSON.stringify past the size it stringifies whole, where it goes value by value', () => {
    const random = seededRandom(7)
    for (let i = 0; i < 100; i++) {
      const value = {
        rows: Array.from({ length: 120 }, () => randomValue(random, 0)),
        nested: { more: Array.from({ length: 300 }, () => randomValue(random, 3)), skipped: undefined },
      }
      expect([...jsonChunks(value, { chunkChars: 100 })].join('')).toBe(JSON.stringify(value))
      expect([...jsonChunks(value, { indent: true, prefix: '  ' })].join('')).toBe(
        JSON.stringify(value, null, 2).replaceAll('\n', '\n  '),
      )
    }
  })

  it('hands a large array over in pieces of about the chunk size, never the whole text at once', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ taskId: `task-${i}`, passed: i % 3, cost: i / 7 }))
    const chunks = [...jsonChunks({ rows }, { indent: true, chunkChars: 4096 })]
    expect(chunks.length).toBeGreaterThan(50)
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(4096 + 200)
    expect(chunks.join('')).toBe(JSON.stringify({ rows }, null, 2))
  })
})
