import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { VIEW_INDEX_VERSION, ViewIndexFile } from '../../core/index.ts'
import { parseSmallJson } from './bundle-small-files.ts'
import type { IndexedRun } from './indexed-run.ts'

/** A row of the index and the stamp of the folder it was read from. */
export interface CachedRun {
  stamp: string
  run: IndexedRun
}

/** Where a runs folder's index is cached: a dot-folder, which listRunFolders, prune and recover all pass over. */
export function defaultCacheFile(runsDir: string): string {
  return join(runsDir, '.agentevalops', 'view-index.json')
}

/** The cached rows by folder; empty when there is no cache or it is not one this version wrote (then it is rebuilt). */
export async function loadIndexCache(file: string): Promise<Map<string, CachedRun>> {
  const rows = new Map<string, CachedRun>()
  const bytes = await readFile(file).catch(() => undefined)
  if (!bytes) return rows
  const parsed = parseSmallJson(bytes, ViewIndexFile)
  if (!parsed.ok) return rows
  for (const { folder, stamp, run } of parsed.value.runs) {
    // A row filed under another folder than its own would show one bundle's figures under another's name.
    if (run.entry.run === folder) rows.set(folder, { stamp, run })
  }
  return rows
}

/**
 * Writes the index whole, into place by a rename so a reader never sees half of it. Failing to write it (a
 * read-only runs folder) costs only the next start's speed: the error is swallowed.
 */
export async function saveIndexCache(file: string, rows: ReadonlyMap<string, CachedRun>): Promise<void> {
  const body: ViewIndexFile = {
    version: VIEW_INDEX_VERSION,
    runs: [...rows].map(([folder, { stamp, run }]) => ({ folder, stamp, run })),
  }
  const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.partial`
  try {
    await mkdir(dirname(file), { recursive: true })
    await writeFile(partial, JSON.stringify(body))
    await rename(partial, file)
  } catch {
    await rm(partial, { force: true }).catch(() => undefined)
  }
}
