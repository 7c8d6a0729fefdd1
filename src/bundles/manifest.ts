import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { BUNDLE_FORMAT_VERSION, Manifest, type RunMetadata } from '../core/index.ts'
import type { FileDigest } from './durable-file.ts'
import { MANIFEST_FILE } from './layout.ts'

export async function hashFile(path: string): Promise<FileDigest> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>) {
    hash.update(chunk)
    size += chunk.length
  }
  return { sha256: hash.digest('hex'), size }
}

export interface BundleListing {
  /** Regular files, as sorted POSIX paths relative to the bundle. */
  files: string[]
  /** Anything else (symlinks, sockets …): a bundle holds none, and a manifest cannot vouch for them. */
  others: string[]
}

export async function listBundleFiles(dir: string): Promise<BundleListing> {
  const listing: BundleListing = { files: [], others: [] }
  await walk(dir, '', listing)
  listing.files.sort()
  listing.others.sort()
  return listing
}

async function walk(root: string, prefix: string, into: BundleListing): Promise<void> {
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) await walk(root, rel, into)
    else if (entry.isFile()) into.files.push(rel)
    else into.others.push(rel)
  }
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
