import { describe, expect, it, vi } from 'vitest'
import { jsonChunks, StreamedJsonArray } from '../../src/core/index.ts'
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
  if (r < 0.6) {
    const elements = Array.from({ length: Math.floor(random() * 6) }, () => randomValue(random, depth + 1))
    // Some arrays come as a stream: written element by element from their source, nested anywhere.
    return random() < 0.3 ? new StreamedJsonArray(() => elements) : elements
  }
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

  it('writes a streamed array from its source each time, without asking it for the whole array', () => {
    let reads = 0
    const rows = new StreamedJsonArray(function* () {
      reads++
      for (let i = 0; i < 3000; i++) yield { i, name: `row ${i}` }
    })
    const whole = JSON.stringify({ head: 1, rows, tail: [rows] }, null, 2)
    expect(reads).toBe(2)
    const materialize = vi.spyOn(StreamedJsonArray.prototype, 'toJSON').mockImplementation(() => {
      throw new Error('jsonChunks must not materialise a streamed array')
    })
    try {
      expect([...jsonChunks({ head: 1, rows, tail: [rows] }, { indent: true })].join('')).toBe(whole)
      expect(reads).toBe(4)
      expect(materialize).not.toHaveBeenCalled()
    } finally {
      materialize.mockRestore()
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
