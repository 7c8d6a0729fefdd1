/**
 * A set of OTLP span ids (16 lowercase hex digits, as the schema requires) in 8 bytes each: spans.jsonl of a long
 * run holds hundreds of thousands of spans, and a Map of their id strings would take ten times the memory. Open
 * addressing with linear probing over pairs of 32-bit words; the all-zero id is kept apart, as it marks an empty
 * slot.
 */
export class SpanIdSet {
  private slots = new Uint32Array(2 * 1024)
  private count = 0
  private hasZero = false

  get size(): number {
    return this.count + (this.hasZero ? 1 : 0)
  }

  has(id: string): boolean {
    const hi = parseInt(id.slice(0, 8), 16) >>> 0
    const lo = parseInt(id.slice(8, 16), 16) >>> 0
    if (hi === 0 && lo === 0) return this.hasZero
    return this.find(hi, lo) >= 0
  }

  add(id: string): void {
    const hi = parseInt(id.slice(0, 8), 16) >>> 0
    const lo = parseInt(id.slice(8, 16), 16) >>> 0
    if (hi === 0 && lo === 0) {
      this.hasZero = true
      return
    }
    if (this.find(hi, lo) >= 0) return
    if (2 * (this.count + 1) > this.slots.length / 2) this.grow()
    this.insert(hi, lo)
    this.count += 1
  }

  /** The slot holding the id, or -1. */
  private find(hi: number, lo: number): number {
    const mask = this.slots.length / 2 - 1
    for (let i = hash(hi, lo) & mask; ; i = (i + 1) & mask) {
      const h = this.slots[2 * i]!
      const l = this.slots[2 * i + 1]!
      if (h === hi && l === lo) return i
      if (h === 0 && l === 0) return -1
    }
  }

  private insert(hi: number, lo: number): void {
    const mask = this.slots.length / 2 - 1
    let i = hash(hi, lo) & mask
    while (this.slots[2 * i] !== 0 || this.slots[2 * i + 1] !== 0) i = (i + 1) & mask
    this.slots[2 * i] = hi
    this.slots[2 * i + 1] = lo
  }

  private grow(): void {
    const old = this.slots
    this.slots = new Uint32Array(old.length * 2)
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== 0 || old[i + 1] !== 0) this.insert(old[i]!, old[i + 1]!)
    }
  }
}

function hash(hi: number, lo: number): number {
  return (Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b) >>> 15) ^ lo
}
