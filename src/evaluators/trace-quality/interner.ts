import type { JsonValue } from '../../core/index.ts'

// FNV-1a over UTF-16 code units: cheap, and no string is built to hash a value.
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

function hashString(s: string, seed: number): number {
  let h = seed
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME)
  return h
}

/**
 * A hash of a JSON value that ignores object key order, as canonicalJson does: object entries are combined by
 * addition, which does not care about order. Each kind of value is seeded differently so 1, "1" and [1] differ.
 */
// A number is hashed by its bits, not its text: String(n) would allocate a string for every number in a trace.
const float = new Float64Array(1)
const words32 = new Uint32Array(float.buffer)

function hashNumber(n: number): number {
  float[0] = n === 0 ? 0 : n // -0 and 0 are the same JSON number
  return Math.imul(Math.imul(FNV_OFFSET ^ 2 ^ words32[0]!, FNV_PRIME) ^ words32[1]!, FNV_PRIME)
}

function hashJson(v: JsonValue): number {
  if (typeof v === 'string') return hashString(v, FNV_OFFSET ^ 1)
  if (typeof v === 'number') return hashNumber(v)
  if (typeof v === 'boolean') return v ? 0x2f1a3c5b : 0x5b3c1a2f
  if (v === null) return 0x0badf00d
  if (Array.isArray(v)) {
    let h = FNV_OFFSET ^ 3
    for (const item of v) h = Math.imul(h ^ hashJson(item), FNV_PRIME) ^ (h >>> 15)
    return h ^ v.length
  }
  let h = FNV_OFFSET ^ 4
  let n = 0
  for (const k in v) {
    n++
    h = (h + Math.imul(hashString(k, 0x9e3779b9) ^ hashJson(v[k]!), 0x85ebca6b)) | 0
  }
  return h ^ n
}

/** Deep equality with object key order ignored: the equality canonicalJson strings have. */
function equalJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!equalJson(a[i]!, b[i]!)) return false
    return true
  }
  let n = 0
  for (const k in a) {
    n++
    if (!Object.hasOwn(b, k) || !equalJson(a[k]!, b[k]!)) return false
  }
  for (const _k in b) n--
  return n === 0
}

/** Murmur3's finalizer: spreads every input bit over the low bits that pick a table slot. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return h ^ (h >>> 16)
}

/**
 * Gives equal (tag, JSON value) pairs the same small integer id, counting from 0, so detectors compare ids instead
 * of values. It answers what interning canonicalJson strings would, but hashes the value in place and confirms with
 * a deep comparison: no string per value, which on long traces is several times faster and spares the garbage
 * collector. A hash collision costs one extra comparison, never a wrong answer.
 *
 * The table is open addressing over typed arrays rather than a Map: on traces of 100k+ values the lookups are
 * what dominates, and a compact table keeps them in cache.
 */
export class Interner {
  /** Slot → id + 1 (0: empty). Kept at most half full. */
  private table = new Int32Array(1024)
  /** Id → full hash, so a slot whose hash differs is skipped without comparing values. */
  private hashes = new Int32Array(512)
  private readonly tags: string[] = []
  private readonly values: JsonValue[] = []

  /** How many distinct pairs were interned: ids run from 0 to size − 1, so a new pair gets id size − 1. */
  get size(): number {
    return this.values.length
  }

  intern(tag: string, value: JsonValue): number {
    const h = mix(hashString(tag, hashJson(value)))
    const mask = this.table.length - 1
    let slot = h & mask
    for (let entry = this.table[slot]!; entry !== 0; entry = this.table[slot]!) {
      const id = entry - 1
      if (this.hashes[id] === h && this.tags[id] === tag && equalJson(this.values[id]!, value)) return id
      slot = (slot + 1) & mask
    }
    const id = this.values.length
    this.tags.push(tag)
    this.values.push(value)
    if (id === this.hashes.length) {
      const hashes = new Int32Array(id * 2)
      hashes.set(this.hashes)
      this.hashes = hashes
    }
    this.hashes[id] = h
    this.table[slot] = id + 1
    if ((id + 1) * 2 > this.table.length) this.grow()
    return id
  }

  private grow(): void {
    const table = new Int32Array(this.table.length * 2)
    const mask = table.length - 1
    for (let id = 0; id < this.values.length; id++) {
      let slot = this.hashes[id]! & mask
      while (table[slot] !== 0) slot = (slot + 1) & mask
      table[slot] = id + 1
    }
    this.table = table
  }
}
