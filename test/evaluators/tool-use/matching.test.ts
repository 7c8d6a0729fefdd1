import { describe, expect, it } from 'vitest'
import { longestOrderedPairing, maximumMatching } from '../../../src/evaluators/tool-use/matching.ts'

/** The size of a maximum matching by trying every assignment: slow, obviously right. */
function bruteForce(edges: boolean[][], left = 0, used = new Set<number>()): number {
  if (left === edges.length) return 0
  let best = bruteForce(edges, left + 1, used)
  edges[left]!.forEach((ok, r) => {
    if (!ok || used.has(r)) return
    used.add(r)
    best = Math.max(best, 1 + bruteForce(edges, left + 1, used))
    used.delete(r)
  })
  return best
}

/** Deterministic, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648
    return s / 2147483648
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

describe('maximumMatching', () => {
  it('re-pairs along a long augmenting path that greedy first-fit never finds', () => {
    // Left i accepts rights i and i + 1, the last left only right 0: greedy pairs i → i and strands the last one.
    const n = 6
    const edge = (l: number, r: number) => (l === n - 1 ? r === 0 : r === l || r === l + 1)
    const pairs = maximumMatching(range(n), range(n), edge)
    expect(pairs.size).toBe(n)
    expect([...pairs].every(([l, r]) => edge(l, r))).toBe(true)
    expect(new Set(pairs.values()).size).toBe(n)
    expect(pairs.get(n - 1)).toBe(0)
  })

  it('pairs equal items in order', () => {
    expect([...maximumMatching(range(3), range(3), () => true)]).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ])
  })

  it('is as large as a brute-force maximum on random graphs', () => {
    const random = rng(42)
    for (let trial = 0; trial < 300; trial++) {
      const lefts = Math.floor(random() * 6)
      const rights = Math.floor(random() * 6)
      const density = random()
      const edges = range(lefts).map(() => range(rights).map(() => random() < density))
      const pairs = maximumMatching(range(lefts), range(rights), (l, r) => edges[l]![r]!)
      expect(pairs.size, JSON.stringify(edges)).toBe(bruteForce(edges))
      expect([...pairs].every(([l, r]) => edges[l]![r])).toBe(true)
      expect(new Set(pairs.values()).size).toBe(pairs.size)
    }
  })
})

describe('longestOrderedPairing', () => {
  it('finds the longest in-order pairing', () => {
    const left = ['a', 'b', 'c', 'd']
    const right = ['a', 'x', 'c', 'b', 'd']
    const pairs = longestOrderedPairing(left.length, right.length, (l, r) => left[l] === right[r])
    expect(pairs).toHaveLength(3)
    expect(pairs.every(([l, r]) => left[l] === right[r])).toBe(true)
    expect(pairs.every(([l, r], i) => i === 0 || (l > pairs[i - 1]![0] && r > pairs[i - 1]![1]))).toBe(true)
    expect(longestOrderedPairing(0, 3, () => true)).toEqual([])
  })
})
