import { createHash } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { AgentEvalOpsError, BUNDLE_FORMAT_VERSION, Manifest, type RunMetadata } from '../core/index.ts'
import { closeFile, describeIoError, openBundleFile, readChunks, type OpenFile } from './bundle-file.ts'
import type { FileDigest } from './durable-file.ts'
import { MANIFEST_FILE } from './layout.ts'
import { MAX_ENTRIES } from './limits.ts'

/** Size and SHA-256 of a regular file, read in chunks; a symlink or anything but a regular file is refused. */
export async function hashFile(path: string): Promise<FileDigest> {
  const opened = await openBundleFile(path)
  if (!opened.ok) throw new AgentEvalOpsError('BUNDLE_INVALID', `${path} ${opened.problem}`)
  try {
    return await hashOpenFile(opened)
  } finally {
    await closeFile(opened.fd)
  }
}

export async function hashOpenFile(file: OpenFile): Promise<FileDigest> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of readChunks(file)) {
    hash.update(chunk)
    size += chunk.length
  }
  return { sha256: hash.digest('hex'), size }
}

export interface BundleListing {
  /** Regular files, as sorted POSIX paths relative to the bundle. */
  files: string[]
  /** Symbolic links: never followed, whatever they point at. */
  symlinks: string[]
  /** Anything else but folders (FIFOs, sockets, devices): a bundle holds none, and a manifest cannot vouch for them. */
  others: string[]
  /** Folders that could not be listed, and why. */
  unreadable: { path: string; problem: string }[]
  /** Set when the bundle has more than MAX_ENTRIES entries: the rest were not listed. */
  truncated: boolean
}

/** Every entry under `dir`, breadth first and without following symlinks; bounded by MAX_ENTRIES. */
export async function listBundleFiles(dir: string): Promise<BundleListing> {
  const listing: BundleListing = { files: [], symlinks: [], others: [], unreadable: [], truncated: false }
  const folders = ['']
  let entries = 0
  for (let i = 0; i < folders.length; i++) {
    const prefix = folders[i]!
    let names
    try {
      names = await readdir(join(dir, prefix), { withFileTypes: true })
    } catch (e) {
      listing.unreadable.push({ path: prefix || '.', problem: `could not be listed (${describeIoError(e)})` })
      continue
    }
    for (const entry of names) {
      if (++entries > MAX_ENTRIES) {
        listing.truncated = true
        break
      }
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name
      if (entry.isDirectory()) folders.push(rel)
      else if (entry.isFile()) listing.files.push(rel)
      else if (entry.isSymbolicLink()) listing.symlinks.push(rel)
      else listing.others.push(rel)
    }
    if (listing.truncated) break
  }
  listing.files.sort()
  listing.symlinks.sort()
  listing.others.sort()
  return listing
}

/**
 * The manifest a folder's current content deserves: every file but the manifest itself. For tools that assemble
 * or repair bundles (merge, tests); the writer stamps what it wrote without reading it back.
 */
export async function manifestForDir(
  dir: string,
  runId: RunMetadata['runId'],
  createdAt: string = new Date().toISOString(),
): Promise<Manifest> {
  const { files } = await listBundleFiles(dir)
  const entries = []
  for (const path of files) {
    if (path === MANIFEST_FILE) continue
    entries.push({ path, ...(await hashFile(join(dir, path))) })
  }
  return Manifest.parse({ formatVersion: BUNDLE_FORMAT_VERSION, runId, createdAt, files: entries })
}

/** Stable, diff-friendly JSON for every bundle file the SDK writes. */
export function toBundleJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
