/**
 * The last `limit` bytes of a stream (a child's stderr), for an error message, without ever holding much more.
 */
export class OutputTail {
  private chunks: Buffer[] = []
  private held = 0
  total = 0

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.held += chunk.length
    this.total += chunk.length
    // Drop whole chunks while the rest still covers the limit; bounded by the number of chunks held.
    while (this.chunks.length > 1 && this.held - this.chunks[0]!.length >= this.limit) {
      this.held -= this.chunks.shift()!.length
    }
  }

  /** Whether the start of the stream was dropped. */
  get truncated(): boolean {
    return this.total > this.limit
  }

  /** The kept text (see `truncated` for whether it is the whole stream). */
  text(): string {
    const bytes = Buffer.concat(this.chunks)
    const kept = bytes.subarray(Math.max(0, bytes.length - this.limit))
    if (kept.length === this.total) return kept.toString('utf8')
    // A cut can split a multi-byte character; its orphaned continuation bytes decode as U+FFFD.
    return kept.toString('utf8').replace(/^\uFFFD+/, '')
  }
}
