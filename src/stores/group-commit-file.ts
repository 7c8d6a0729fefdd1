import { open, type FileHandle } from 'node:fs/promises'
import { AgentEvalOpsError, errorMessage } from '../core/index.ts'

export interface GroupCommitStats {
  /** Calls to append(). */
  appends: number
  /** write + datasync rounds: fewer than appends when appends were batched. */
  commits: number
  bytes: number
}

interface Batch {
  chunks: string[]
  done: Promise<void>
  resolve: () => void
  reject: (e: unknown) => void
}

/**
 * An append-only file where every awaited append is on disk, at the price of one fsync per *batch*: appends
 * that arrive while a write + fsync is in flight wait for the next round and share it.
 * The file is opened on first use, so an unused writer costs no file descriptor: truncated by default, or appended
 * to with `flags: 'a'` (a log that several instances of a module in one process write in turn).
 */
export class GroupCommitFile {
  private handle: FileHandle | null = null
  private next: Batch | null = null
  private flushing: Promise<void> | null = null
  private failure: AgentEvalOpsError | null = null
  private closing: Promise<void> | null = null
  private readonly counters: GroupCommitStats = { appends: 0, commits: 0, bytes: 0 }
  /** Ends the current commit window early: close() wants everything on disk now. */
  private wake: (() => void) | null = null

  /**
   * `commitDelayMs` is how long the first append of a batch waits for company: 0 waits one event-loop turn only.
   * A longer window trades the latency of an awaited append (never of close()) for fewer fsyncs.
   */
  constructor(
    readonly file: string,
    private readonly beforeOpen: () => Promise<void> = async () => {},
    private readonly commitDelayMs = 0,
    private readonly flags: 'w' | 'a' = 'w',
  ) {}

  get stats(): GroupCommitStats {
    return { ...this.counters }
  }

  get closed(): boolean {
    return this.closing !== null
  }

  /** The caller checks `closed` first: once closing, data handed in here would be silently lost. */
  append(chunk: string): Promise<void> {
    this.counters.appends++
    if (this.failure !== null) return Promise.reject(this.failure)
    const batch = (this.next ??= newBatch())
    batch.chunks.push(chunk)
    this.flushing ??= this.flush()
    return batch.done
  }

  /** Waits for every append, makes sure the file exists and is synced, and closes it. Idempotent. */
  close(): Promise<void> {
    this.wake?.()
    return (this.closing ??= this.doClose())
  }

  private async flush(): Promise<void> {
    // Wait out the commit window (at least the current turn of the event loop): what a trial emits in one go (a
    // burst of steps, the terminal event with its scores) then shares one write + fsync.
    await this.commitWindow()
    while (this.next) {
      const batch = this.next
      this.next = null
      if (this.failure === null) {
        try {
          await this.commit(batch.chunks.join(''))
          batch.resolve()
          continue
        } catch (e) {
          this.failure = this.writeError(e)
        }
      }
      batch.reject(this.failure)
    }
    this.flushing = null
  }

  private commitWindow(): Promise<void> {
    if (this.closing) return new Promise((resolve) => setImmediate(resolve))
    return new Promise<void>((resolve) => {
      const done = () => {
        if (typeof timer === 'object' && 'refresh' in timer) clearTimeout(timer)
        else clearImmediate(timer)
        this.wake = null
        resolve()
      }
      const timer = this.commitDelayMs > 0 ? setTimeout(done, this.commitDelayMs) : setImmediate(done)
      this.wake = done
    })
  }

  private async commit(data: string): Promise<void> {
    const handle = await this.ensureOpen()
    const buffer = Buffer.from(data, 'utf8')
    let offset = 0
    // A write may land only part of the buffer; the rest must follow before the batch counts as durable.
    while (offset < buffer.length) {
      const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset)
      offset += bytesWritten
    }
    await handle.datasync()
    this.counters.commits++
    this.counters.bytes += buffer.length
  }

  private async ensureOpen(): Promise<FileHandle> {
    if (!this.handle) {
      await this.beforeOpen()
      this.handle = await open(this.file, this.flags)
    }
    return this.handle
  }

  private async doClose(): Promise<void> {
    await this.flushing
    try {
      // Every commit already ended in datasync; only a file created here, empty, still needs one.
      if (this.failure === null && this.handle === null) await (await this.ensureOpen()).sync()
    } catch (e) {
      this.failure = this.writeError(e)
    }
    try {
      await this.handle?.close()
    } catch (e) {
      this.failure ??= this.writeError(e)
    } finally {
      this.handle = null
    }
    if (this.failure !== null) throw this.failure
  }

  private writeError(cause: unknown): AgentEvalOpsError {
    return new AgentEvalOpsError('INFRA_FAILURE', `cannot write ${this.file}: ${errorMessage(cause)}`, {
      cause,
    })
  }
}

function newBatch(): Batch {
  let resolve!: () => void
  let reject!: (e: unknown) => void
  const done = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  // A batch may fail before anyone awaits it; the rejection still reaches every caller that does.
  done.catch(() => {})
  return { chunks: [], done, resolve, reject }
}
