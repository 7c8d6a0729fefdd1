import { createHash, type Hash } from 'node:crypto'
import { open, type FileHandle } from 'node:fs/promises'

export interface FileDigest {
  sha256: string
  size: number
}

const FLUSH_BYTES = 1 << 18

/**
 * A file written for a bundle: buffered (traces can be large), checksummed while written so the manifest needs no
 * second read, and fsynced on close so a bundle that was renamed into place survives a crash.
 */
export class DurableFileWriter {
  private readonly hash: Hash = createHash('sha256')
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  private size = 0

  private constructor(private readonly handle: FileHandle) {}

  static async create(path: string): Promise<DurableFileWriter> {
    // 'wx': the staging folder is ours alone, so an existing file means a bug, not something to overwrite.
    return new DurableFileWriter(await open(path, 'wx'))
  }

  /** Bytes given are kept, not copied, until the next flush: the caller must not change them after. */
  async write(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    this.hash.update(bytes)
    this.size += bytes.length
    this.pending.push(bytes)
    this.pendingBytes += bytes.length
    if (this.pendingBytes >= FLUSH_BYTES) await this.flush()
  }

  async close(): Promise<FileDigest> {
    try {
      await this.flush()
      await this.handle.sync()
    } finally {
      await this.handle.close()
    }
    return { sha256: this.hash.digest('hex'), size: this.size }
  }

  /** Closes without caring about the content: the caller is about to delete the staging folder. */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined)
  }

  /** Writes what is buffered (the file stays open and unsynced). */
  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return
    const data = Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    await this.handle.writeFile(data)
  }
}

/** A file written durably from `chunks` in order, with its digest; nothing of it is kept if a chunk fails. */
export async function writeDurableChunks(
  path: string,
  chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): Promise<FileDigest> {
  const writer = await DurableFileWriter.create(path)
  try {
    for await (const chunk of chunks) await writer.write(chunk)
  } catch (e) {
    await writer.abandon()
    throw e
  }
  return writer.close()
}

export function writeDurableFile(path: string, data: string | Uint8Array): Promise<FileDigest> {
  return writeDurableChunks(path, [data])
}

/** A rename is only durable once the folder holding the entry is synced; not every platform allows it. */
export async function fsyncDir(path: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(path, 'r')
    await handle.sync()
  } catch {
    // Windows and some filesystems refuse to fsync a directory; the data files themselves are already synced.
  } finally {
    await handle?.close().catch(() => undefined)
  }
}
