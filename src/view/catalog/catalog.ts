import { watch, type FSWatcher } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import pLimit from 'p-limit'
import type { IndexedRun } from './indexed-run.ts'
import { defaultCacheFile, loadIndexCache, saveIndexCache, type CachedRun } from './index-cache.ts'
import { readRunEntry } from './read-run-entry.ts'

export interface CatalogOptions {
  /** Where the index is cached; default `<runsDir>/.agentevalops/view-index.json`; null keeps it in memory only. */
  cacheFile?: string | null
  /** How a folder's row is read: readRunEntry, unless a caller (a test counting reads) wraps it. */
  readEntry?: (runsDir: string, folder: string) => Promise<IndexedRun>
}

/** Folders read at once on a cold start: enough to keep the disk busy, few enough not to exhaust descriptors. */
const READ_CONCURRENCY = 16
/** Bursts of file-system events (a bundle being copied in) make one re-scan. */
const WATCH_SETTLE_MS = 50

/**
 * The bundles of a runs folder as the view lists them: one IndexedRun per bundle folder, read from its small files,
 * cached on disk, and read again only for a folder whose stamp changed (its manifest replaced, or entries added or
 * removed in it). A re-scan (refresh) lists the folder and stats each bundle's manifest; the runs folder is watched
 * so a bundle that appears (a run sealed, a bundle copied in) makes one.
 */
export class Catalog {
  private rows = new Map<string, CachedRun>()
  private loaded = false
  private scanning: Promise<boolean> | undefined
  private again = false
  private watcher: FSWatcher | undefined
  private settle: NodeJS.Timeout | undefined
  private readonly listeners = new Set<() => void>()
  private readonly cacheFile: string | null
  private readonly readEntry: (runsDir: string, folder: string) => Promise<IndexedRun>

  constructor(
    readonly runsDir: string,
    options: CatalogOptions = {},
  ) {
    this.cacheFile = options.cacheFile === undefined ? defaultCacheFile(runsDir) : options.cacheFile
    this.readEntry = options.readEntry ?? readRunEntry
  }

  /** The runs, newest first (by start time; folders without one last, by name). */
  runs(): IndexedRun[] {
    return [...this.rows.values()].map((r) => r.run).sort(newestFirst)
  }

  /** The row of a folder the last scan found; never a path made from the name. */
  get(folder: string): { run: IndexedRun; dir: string; stamp: string } | undefined {
    const row = this.rows.get(folder)
    return row && { run: row.run, dir: join(this.runsDir, folder), stamp: row.stamp }
  }

  /**
   * Lists the runs folder again and reads the folders that are new or changed. Calls made while a scan runs wait
   * for one more scan after it (a change may have come after it listed the folder). True when any row changed.
   */
  refresh(): Promise<boolean> {
    if (this.scanning) {
      this.again = true
      return this.scanning
    }
    const run = async (): Promise<boolean> => {
      let changed = false
      do {
        this.again = false
        changed = (await this.scan()) || changed
      } while (this.again)
      return changed
    }
    this.scanning = run().finally(() => {
      this.scanning = undefined
    })
    return this.scanning
  }

  /** Calls `listener` after a re-scan that changed a row. Returns the function that unsubscribes it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Watches the runs folder: a folder appearing or going re-scans it (and tells the listeners if rows changed). */
  watch(): void {
    if (this.watcher) return
    try {
      this.watcher = watch(this.runsDir, { persistent: false }, (_event, name) => {
        // Dot-entries are staging folders and this index's own cache: the live view watches `.staging/`.
        if (typeof name === 'string' && name.startsWith('.')) return
        clearTimeout(this.settle)
        this.settle = setTimeout(() => void this.refreshAndTell(), WATCH_SETTLE_MS)
      })
      this.watcher.on('error', () => this.unwatch())
    } catch {
      // No watching here (some network file systems): a request re-scans anyway.
    }
  }

  close(): void {
    this.unwatch()
    this.listeners.clear()
  }

  private unwatch(): void {
    clearTimeout(this.settle)
    this.watcher?.close()
    this.watcher = undefined
  }

  private async refreshAndTell(): Promise<void> {
    if (await this.refresh().catch(() => false)) for (const listener of this.listeners) listener()
  }

  private async scan(): Promise<boolean> {
    if (!this.loaded) {
      this.loaded = true
      if (this.cacheFile) this.rows = await loadIndexCache(this.cacheFile)
    }
    const folders = await bundleFolders(this.runsDir)
    let changed = false
    const next = new Map<string, CachedRun>()
    const limit = pLimit(READ_CONCURRENCY)
    await Promise.all(
      folders.map((folder) =>
        limit(async () => {
          const stamp = await folderStamp(join(this.runsDir, folder))
          const cached = this.rows.get(folder)
          if (cached && cached.stamp === stamp) {
            next.set(folder, cached)
            return
          }
          changed = true
          next.set(folder, { stamp, run: await this.readEntry(this.runsDir, folder) })
        }),
      ),
    )
    if (next.size !== this.rows.size) changed = true
    // In listing order, so that the cache file is the same for the same folder.
    this.rows = new Map(folders.flatMap((f) => (next.has(f) ? [[f, next.get(f)!] as const] : [])))
    if (changed && this.cacheFile) await saveIndexCache(this.cacheFile, this.rows)
    return changed
  }
}

/**
 * The runs folder's sub-folders, by name: no dot-folders (staging, this cache) and no symlinks (a link is never
 * followed out of the runs folder, so it is not listed at all).
 */
async function bundleFolders(runsDir: string): Promise<string[]> {
  const entries = await readdir(runsDir, { withFileTypes: true })
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort()
}

/**
 * What says a folder changed without reading it: its own modification time (entries added or removed) and its
 * manifest's size, times and inode. The change time and inode are set by the file system, never by a tool
 * restoring times, so an index planted beside a bundle (a runs folder unpacked from an archive) does not match.
 */
async function folderStamp(dir: string): Promise<string> {
  const [folder, manifest] = await Promise.all([
    lstat(dir).catch(() => undefined),
    lstat(join(dir, 'manifest.json'), { bigint: true }).catch(() => undefined),
  ])
  const own = folder ? `${folder.mtimeMs}` : 'gone'
  if (!manifest) return `${own}|none`
  const kind = manifest.isFile() ? 'f' : manifest.isSymbolicLink() ? 'l' : 'o'
  return `${own}|${kind}:${manifest.size}:${manifest.mtimeNs}:${manifest.ctimeNs}:${manifest.ino}`
}

function newestFirst(a: IndexedRun, b: IndexedRun): number {
  const x = a.entry.startedAt
  const y = b.entry.startedAt
  if (x !== y) {
    if (x === null) return 1
    if (y === null) return -1
    return x < y ? 1 : -1
  }
  return a.entry.run < b.entry.run ? -1 : a.entry.run > b.entry.run ? 1 : 0
}
