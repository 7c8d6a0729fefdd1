import { close, constants, fstat, open, read } from 'node:fs'
import { promisify } from 'node:util'
import type { CheckName } from './checks.ts'

// Plain file descriptors rather than FileHandle objects: a validation opens every file of the bundle, and a
// FileHandle costs several times more to create and close. Every opener closes in a `finally`.
const openFd = promisify(open)
const fstatFd = promisify(fstat)
const closeFd = promisify(close)
const readFd = (fd: number, buffer: Buffer, offset: number, length: number, position: number) =>
  new Promise<number>((resolve, reject) =>
    read(fd, buffer, offset, length, position, (error, bytesRead) =>
      error ? reject(error) : resolve(bytesRead),
    ),
  )

// O_NOFOLLOW: a symlink swapped in after the folder was listed is refused, not followed out of the bundle.
// O_NONBLOCK: opening a FIFO for reading would otherwise wait forever for a writer (it is then refused by fstat).
// Neither exists on Windows, which has no FIFOs and whose listing already set symlinks aside.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/** A regular file of a bundle, open for reading; `size` is its size when it was opened. */
export interface OpenFile {
  fd: number
  size: number
}

export type OpenedFile = ({ ok: true } & OpenFile) | { ok: false; check: CheckName; problem: string }

/** Opens a file of a bundle for reading if, and only if, it is a regular file reached without a symlink. */
export async function openBundleFile(path: string): Promise<OpenedFile> {
  let fd: number
  try {
    fd = await openFd(path, OPEN_FLAGS)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    // ELOOP on Linux and macOS, EMLINK on FreeBSD: the last component is a symlink.
    if (code === 'ELOOP' || code === 'EMLINK') {
      return { ok: false, check: 'no-symlinks', problem: 'is a symbolic link (refused, never followed)' }
    }
    return { ok: false, check: 'readable', problem: `could not be opened (${describeIoError(e)})` }
  }
  try {
    const info = await fstatFd(fd)
    if (info.isFile()) return { ok: true, fd, size: info.size }
    await closeFile(fd)
    return { ok: false, check: 'regular-files', problem: 'is not a regular file' }
  } catch (e) {
    await closeFile(fd)
    return { ok: false, check: 'readable', problem: `could not be read (${describeIoError(e)})` }
  }
}

export async function closeFile(fd: number): Promise<void> {
  await closeFd(fd).catch(() => undefined)
}

/**
 * The file's bytes as they were when it was opened, in chunks: the first `size` bytes, so that a file growing
 * while it is read cannot make this read more than was measured. The next chunk is read while the caller works on
 * this one: a validator's parsing then never waits for the disk (or the thread pool) between chunks.
 */
export async function* readChunks(
  file: OpenFile,
  chunkBytes = 256 * 1024,
  options: { reuse?: boolean } = {},
): AsyncGenerator<Buffer> {
  let position = 0
  // With `reuse`, two buffers take turns (one read into while the caller has the other): no allocation, and so no
  // garbage, per chunk. A chunk is then only valid until the caller asks for the next one.
  const spare = options.reuse
    ? [
        Buffer.allocUnsafe(Math.min(chunkBytes, file.size)),
        Buffer.allocUnsafe(Math.min(chunkBytes, file.size)),
      ]
    : undefined
  let turn = 0
  const readNext = (): Promise<{ chunk: Buffer; short: boolean }> | undefined => {
    if (position >= file.size) return undefined
    const length = Math.min(chunkBytes, file.size - position)
    // Otherwise a fresh buffer each time: the caller may keep part of a chunk (an unfinished line).
    const buffer = spare ? spare[turn++ % 2]!.subarray(0, length) : Buffer.allocUnsafe(length)
    const at = position
    position += buffer.length
    return readFd(file.fd, buffer, 0, buffer.length, at).then((bytesRead) =>
      bytesRead === buffer.length
        ? { chunk: buffer, short: false }
        : { chunk: buffer.subarray(0, bytesRead), short: true },
    )
  }
  let next = readNext()
  try {
    while (next) {
      const { chunk, short } = await next
      // A short read means the file ends there (it shrank since it was opened): nothing follows to read.
      next = short ? undefined : readNext()
      if (chunk.length > 0) yield chunk
    }
  } finally {
    // A caller that stops early must not close the descriptor under a read still running.
    await next?.catch(() => undefined)
  }
}

/** The whole file as it was when it was opened. */
export async function readWhole(file: OpenFile): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const chunk of readChunks(file, Math.max(file.size, 1))) parts.push(chunk)
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

export function describeIoError(e: unknown): string {
  const error = e as NodeJS.ErrnoException
  return typeof error?.code === 'string' ? error.code : String(error?.message ?? e)
}
