import { createWriteStream, type WriteStream } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { errorMessage, type Redactor } from '../../core/index.ts'

/** Longest stdout line that is parsed; a longer one is skipped (it stays in the stdout artifact). */
export const MAX_LINE_BYTES = 1024 * 1024

const NEWLINE = 0x0a

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line: a longer line is
 * dropped as it streams in and reported by its length. Lines are decoded whole, so a multi-byte character split
 * across chunks survives.
 */
export class LineSplitter {
  private parts: Buffer[] = []
  private held = 0
  /** Bytes of the current line seen so far, when it is already too long to keep. */
  private overflow: number | null = null

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onTooLong: (bytes: number) => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start)
      const end = nl === -1 ? chunk.length : nl
      this.take(chunk.subarray(start, end))
      if (nl === -1) return
      this.endLine()
      start = nl + 1
    }
  }

  /** The stream ended: a last line without a newline is still a line. */
  end(): void {
    if (this.held > 0 || this.overflow !== null) this.endLine()
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return
    if (this.overflow !== null) {
      this.overflow += piece.length
      return
    }
    if (this.held + piece.length > this.maxLineBytes) {
      this.overflow = this.held + piece.length
      this.parts = []
      this.held = 0
      return
    }
    this.parts.push(piece)
    this.held += piece.length
  }

  private endLine(): void {
    if (this.overflow !== null) {
      const bytes = this.overflow
      this.overflow = null
      this.onTooLong(bytes)
      return
    }
    const line = Buffer.concat(this.parts, this.held).toString('utf8')
    this.parts = []
    this.held = 0
    this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line)
  }
}

/**
 * One output stream written to a file, up to `cap` bytes: the start is kept (a trace reads from the beginning),
 * and a note at the end says how much was cut. A write error is reported once and ends the file, never the trial.
 */
export class CappedFile {
  private readonly stream: WriteStream
  private written = 0
  total = 0
  private failed: string | null = null
  private readonly closed: Promise<void>

  constructor(
    readonly path: string,
    private readonly cap: number,
    private readonly onError: (message: string) => void,
    /** Applied to the whole file once it is closed: a secret may straddle two chunks, never two reads. */
    private readonly redactor?: Redactor,
  ) {
    this.stream = createWriteStream(path)
    this.closed = new Promise<void>((resolve) => {
      this.stream.on('close', resolve)
      this.stream.on('error', (e) => {
        this.fail(e)
        resolve()
      })
    })
  }

  write(chunk: Buffer): void {
    this.total += chunk.length
    if (this.failed !== null || this.written >= this.cap) return
    const room = this.cap - this.written
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.written += kept.length
    this.stream.write(kept)
  }

  /** Closes the file; resolves once its content is on disk (or the write has failed). */
  async close(): Promise<void> {
    if (this.total > this.written && this.failed === null) {
      this.stream.write(
        `\n[agentevalops: output truncated: kept the first ${this.written} of ${this.total} bytes]\n`,
      )
    }
    if (!this.stream.writableEnded && !this.stream.destroyed) this.stream.end()
    await this.closed
    if (this.redactor && this.failed === null) await this.redact(this.redactor)
  }

  private async redact(redactor: Redactor): Promise<void> {
    try {
      const text = await readFile(this.path, 'utf8')
      const clean = redactor.string(text)
      if (clean !== text) await writeFile(this.path, clean)
    } catch (e) {
      this.fail(e)
    }
  }

  private fail(e: unknown): void {
    if (this.failed !== null) return
    this.failed = errorMessage(e)
    this.onError(`could not write ${this.path}: ${this.failed}`)
  }
}
