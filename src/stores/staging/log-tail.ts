import { open, readdir, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { WORKER_LOG_DIR, WORKER_LOG_SUFFIX, type WorkerLogLine } from '../../core/index.ts'

/** One line of a worker log (`{"benchmark":…}`, `{"event":…}` or `{"record":…}`); see src/core/staging.ts. */
export type LogLine = WorkerLogLine

/** Lines as read() returns them, each beside its text as the log holds it (without the newline). */
export interface LogLines {
  lines: LogLine[]
  texts: string[]
}

const NEWLINE = 0x0a
/** Bytes read per system call: a log caught up with after a pause can be large, its lines still come in one go. */
const CHUNK = 1024 * 1024

/**
 * Follows one worker log of the live run: each read() returns the lines completed since the last one. A line
 * without its newline yet is kept back for the next read (its writer is mid-append, or died there).
 * Lines are JSON.parse'd only, not validated: the log is what this run's own worker wrote.
 * The file is opened on the first read and stays open until close(); a log not created yet reads as empty.
 */
export class LogTail {
  private handle: FileHandle | null = null
  private offset = 0
  /** The start of a line whose newline has not arrived yet. */
  private torn: Buffer = Buffer.alloc(0)
  private reading: Promise<LogLines> | null = null
  private buffer: Buffer = Buffer.alloc(0)
  /** Complete lines that were not JSON, skipped. */
  damaged = 0

  constructor(readonly path: string) {}

  /** Bytes of the log consumed so far, torn tail included. */
  get bytesRead(): number {
    return this.offset
  }

  /** Concurrent calls are served one after another: each line is returned once. */
  async read(): Promise<LogLine[]> {
    return (await this.readWithText()).lines
  }

  /**
   * As read(), with each line's text beside it: a reader that copies a line on (the fold's traces) takes the
   * writer's own JSON instead of stringifying again what it just parsed.
   */
  readWithText(): Promise<LogLines> {
    const previous = this.reading ?? Promise.resolve({ lines: [], texts: [] })
    const next = previous.then(
      () => this.readNew(),
      () => this.readNew(),
    )
    this.reading = next
    return next
  }

  async close(): Promise<void> {
    await this.reading?.catch(() => undefined)
    const handle = this.handle
    this.handle = null
    await handle?.close()
  }

  private async readNew(): Promise<LogLines> {
    const handle = await this.ensureOpen()
    const read: LogLines = { lines: [], texts: [] }
    if (handle === null) return read
    for (;;) {
      if (this.buffer.length < this.torn.length + CHUNK)
        this.buffer = Buffer.allocUnsafe(this.torn.length + CHUNK)
      const buffer = this.buffer
      this.torn.copy(buffer)
      const { bytesRead } = await handle.read(buffer, this.torn.length, CHUNK, this.offset)
      this.offset += bytesRead
      const end = this.torn.length + bytesRead
      const lastNewline = bytesRead === 0 ? -1 : buffer.lastIndexOf(NEWLINE, end - 1)
      if (lastNewline >= 0) {
        // A newline byte never occurs inside a multi-byte UTF-8 character, so cutting there is safe.
        this.parseLines(buffer.toString('utf8', 0, lastNewline), read)
        this.torn = Buffer.from(buffer.subarray(lastNewline + 1, end))
      } else if (bytesRead > 0) {
        this.torn = Buffer.from(buffer.subarray(0, end))
      }
      if (bytesRead < CHUNK) return read
    }
  }

  private parseLines(text: string, into: LogLines): void {
    let start = 0
    while (start < text.length) {
      let end = text.indexOf('\n', start)
      if (end < 0) end = text.length
      if (end > start) {
        const lineText = text.slice(start, end)
        try {
          into.lines.push(JSON.parse(lineText) as LogLine)
          into.texts.push(lineText)
        } catch {
          // Only a damaged disk makes a complete line of our own writer unparseable: count it, read on.
          this.damaged++
        }
      }
      start = end + 1
    }
  }

  private async ensureOpen(): Promise<FileHandle | null> {
    if (this.handle === null) {
      try {
        this.handle = await open(this.path, 'r')
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw e
      }
    }
    return this.handle
  }
}

/** The worker logs of a staging folder, sorted; none when the folder has no logs/ yet. */
export async function workerLogPaths(stagingDir: string): Promise<string[]> {
  const dir = join(stagingDir, WORKER_LOG_DIR)
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return []
    throw e
  })
  return names
    .filter((n) => n.endsWith(WORKER_LOG_SUFFIX))
    .sort()
    .map((n) => join(dir, n))
}
