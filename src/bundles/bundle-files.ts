import { isUtf8 } from 'node:buffer'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { sha256 } from '../core/index.ts'
import { closeFile, openBundleFile, readWhole, type OpenedFile, type OpenFile } from './bundle-file.ts'
import type { CheckName } from './checks.ts'
import type { FileDigest } from './durable-file.ts'
import type { FindingList } from './findings.ts'
import { formatBytes, MAX_ENTRIES, MAX_LINE_BYTES, MAX_WHOLE_FILE_BYTES } from './limits.ts'
import { readLines, type Line } from './lines.ts'
import { hashOpenFile, type BundleListing } from './manifest.ts'

/** Files read whole that no limit names (none today): as much as the largest named one. */
const DEFAULT_WHOLE_FILE_BYTES = Math.max(...Object.values(MAX_WHOLE_FILE_BYTES))
/** Files read at once when checksumming the rest: enough to keep the thread pool busy, far below any fd limit. */
const CONCURRENT_READS = 8

/** What reading one file found, before any of it is reported: reads may overlap, reports keep a fixed order. */
interface Loaded<T> {
  value: T | undefined
  digest: FileDigest | undefined
  problems: { check: CheckName; message: string }[]
  /** Could not be opened or read: the file is reported, and no other check may call it missing or changed. */
  failed: boolean
}

/**
 * The files of one bundle as the inspection reads them: each at most once, never through a symlink, within the
 * size limits, with its digest kept for the manifest check. Problems reading a file become findings, and the file
 * is remembered as already reported so that no later check calls it missing or changed.
 */
export class BundleFiles {
  readonly digests = new Map<string, FileDigest>()
  private readonly failed = new Set<string>()
  private readonly regular: ReadonlySet<string>
  private readonly irregular: ReadonlySet<string>
  private readonly pending = new Map<string, Promise<Loaded<string>>>()

  constructor(
    private readonly dir: string,
    readonly listing: BundleListing,
    private readonly findings: FindingList,
  ) {
    this.regular = new Set(listing.files)
    this.irregular = new Set([...listing.symlinks, ...listing.others])
  }

  /** A regular file of this name was listed. */
  has(file: string): boolean {
    return this.regular.has(file)
  }

  /** The file is there in some form but was refused or could not be read: a finding already says why. */
  reported(file: string): boolean {
    return this.failed.has(file) || this.irregular.has(file)
  }

  /** Starts reading these files whole, together; readText still reports each when it is asked for. */
  prefetch(files: readonly string[]): void {
    for (const file of files) {
      if (!this.has(file) || this.pending.has(file)) continue
      const loading = this.loadText(file)
      // A caller that stops early (a newer format) never awaits the rest; they close their files on their own.
      loading.catch(() => undefined)
      this.pending.set(file, loading)
    }
  }

  /** The whole file as text, or undefined when it is absent, unreadable or over its size limit. */
  async readText(file: string): Promise<string | undefined> {
    if (!this.has(file)) return undefined
    const loading = this.pending.get(file) ?? this.loadText(file)
    this.pending.delete(file)
    return this.settle(file, await loading)
  }

  /** Streams a JSONL file through `visit`, line by line; false when it is absent or unreadable. */
  async readLines(file: string, visit: (line: Line) => void): Promise<boolean> {
    if (!this.has(file)) return false
    const loaded = await this.load(file, async (open) => {
      const hash = createHash('sha256')
      let size = 0
      const onChunk = (chunk: Buffer) => {
        hash.update(chunk)
        size += chunk.length
      }
      await readLines(open, visit, { maxLineBytes: MAX_LINE_BYTES, onChunk })
      return { value: true, digest: { sha256: hash.digest('hex'), size }, problems: [] }
    })
    return this.settle(file, loaded) ?? false
  }

  /** Checksums every listed file no check has read, for the manifest check. */
  async hashUnread(): Promise<void> {
    const unread = this.listing.files.filter((file) => !this.digests.has(file) && !this.failed.has(file))
    const results: Loaded<true>[] = []
    let next = 0
    const worker = async () => {
      for (let i = next++; i < unread.length; i = next++) {
        results[i] = await this.load(unread[i]!, async (open) => ({
          value: true as const,
          digest: await hashOpenFile(open),
          problems: [],
        }))
      }
    }
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_READS, unread.length) }, worker))
    unread.forEach((file, i) => this.settle(file, results[i]!))
  }

  private loadText(file: string): Promise<Loaded<string>> {
    return this.load(file, async (open) => {
      const limit = MAX_WHOLE_FILE_BYTES[file] ?? DEFAULT_WHOLE_FILE_BYTES
      if (open.size > limit) {
        // Not even checksummed: the finding already makes the bundle invalid, and reading gigabytes would not.
        const message = `is ${open.size} bytes, more than the ${formatBytes(limit)} a reader loads: not checked further`
        return {
          value: undefined,
          digest: undefined,
          problems: [{ check: 'size-limits', message }],
          failed: true,
        }
      }
      const bytes = await readWhole(open)
      return {
        value: bytes.toString('utf8'),
        digest: { sha256: sha256(bytes), size: bytes.length },
        problems: isUtf8(bytes) ? [] : [{ check: 'utf8', message: 'is not valid UTF-8' }],
      }
    })
  }

  private async load<T>(
    file: string,
    use: (open: OpenFile) => Promise<Omit<Loaded<T>, 'failed'> & { failed?: boolean }>,
  ): Promise<Loaded<T>> {
    const failure = (check: CheckName, message: string): Loaded<T> => ({
      value: undefined,
      digest: undefined,
      problems: [{ check, message }],
      failed: true,
    })
    const opened: OpenedFile = await openBundleFile(join(this.dir, file))
    if (!opened.ok) return failure(opened.check, opened.problem)
    try {
      return { failed: false, ...(await use(opened)) }
    } catch (e) {
      // Only the file system's errors are the bundle's problem; anything else is a bug and must surface.
      if (!isSystemError(e)) throw e
      return failure('readable', `could not be read (${e.code})`)
    } finally {
      await closeFile(opened.fd)
    }
  }

  private settle<T>(file: string, loaded: Loaded<T>): T | undefined {
    for (const { check, message } of loaded.problems) {
      // Capped per check: a bundle of a hundred thousand unreadable artifacts is one problem, not a list of them.
      this.findings.add(check, file, message, { key: `files:${check}`, label: `files failing ${check}` })
    }
    if (loaded.failed) this.failed.add(file)
    else if (loaded.digest) this.digests.set(file, loaded.digest)
    return loaded.value
  }
}

function isSystemError(e: unknown): e is NodeJS.ErrnoException & { code: string } {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && 'syscall' in e
}

/** What listing the folder found wrong: entries a bundle never holds, folders that could not be listed. */
export function reportListing(listing: BundleListing, findings: FindingList): void {
  for (const path of listing.symlinks) {
    findings.add('no-symlinks', path, 'is a symbolic link (refused, never followed)', {
      key: 'listing:symlinks',
      label: 'symbolic links',
    })
  }
  for (const path of listing.others) {
    findings.add('regular-files', path, 'is not a regular file', {
      key: 'listing:others',
      label: 'entries that are not regular files',
    })
  }
  for (const { path, problem } of listing.unreadable) {
    findings.add('readable', path, problem, {
      key: 'listing:unreadable',
      label: 'folders that could not be listed',
    })
  }
  if (listing.truncated) {
    findings.add('size-limits', '.', `holds more than ${MAX_ENTRIES} entries: the rest were not checked`)
  }
}
