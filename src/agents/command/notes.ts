/** Beyond this many distinct counted problems, the rest share one line: a noisy agent cannot flood the warnings. */
const MAX_KEYS = 20
const OTHER = '\u0000other'

/**
 * The trial's warnings about the agent's output, aggregated: a problem seen on every line is one warning with a
 * count, not thousands. Counted notes are written by flush(); `once` notes at once.
 */
export class RunNotes {
  private readonly counted = new Map<string, { n: number; describe: (n: number) => string }>()
  private readonly said = new Set<string>()
  private flushed = false

  constructor(private readonly warn: (message: string) => void) {}

  count(key: string, describe: (n: number) => string): void {
    const slot = this.counted.has(key) || this.counted.size < MAX_KEYS ? key : OTHER
    const entry = this.counted.get(slot)
    if (entry) entry.n++
    else
      this.counted.set(slot, {
        n: 1,
        describe:
          slot === OTHER ? (n) => `${n} more line(s) of the agent's output had other problems` : describe,
      })
  }

  once(key: string, message: string): void {
    if (this.said.has(key)) return
    this.said.add(key)
    this.warn(message)
  }

  /** Idempotent: a run stopped from outside flushes early, while its warnings can still reach the record. */
  flush(): void {
    if (this.flushed) return
    this.flushed = true
    for (const { n, describe } of this.counted.values()) this.warn(describe(n))
  }
}
