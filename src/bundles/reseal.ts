import { randomBytes } from 'node:crypto'
import { rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { AgentEvalOpsError, Manifest } from '../core/index.ts'
import { fsyncDir, writeDurableFile } from './durable-file.ts'
import { isSafeRelativePath, MANIFEST_FILE } from './layout.ts'
import { hashFile, listBundleFiles, toBundleJson } from './manifest.ts'

export interface ResealInput {
  /** Files to write in place of what the bundle holds under their names (top-level paths of the bundle). */
  files: readonly { path: string; data: string }[]
  runId: string
  /** The bundle's own format version: resealing does not make an old bundle claim a newer format. */
  formatVersion: number
  createdAt: string
}

/**
 * Replaces files of a sealed bundle and seals it again: each file is written beside its target, synced and renamed
 * over it, so a crash leaves the old file or the new one, never half of one; the manifest is then written the same
 * way, last, over what the folder holds. The caller vouches for the files it does not replace.
 */
export async function resealBundle(dir: string, input: ResealInput): Promise<Manifest> {
  for (const file of input.files) {
    if (!isSafeRelativePath(file.path) || file.path.includes('/') || file.path === MANIFEST_FILE)
      throw new AgentEvalOpsError(
        'BUNDLE_INVALID',
        `cannot replace ${JSON.stringify(file.path)} in a bundle: only top-level files other than the manifest are replaced`,
      )
    await replaceFile(dir, file.path, file.data)
  }
  const { files } = await listBundleFiles(dir)
  const entries = []
  for (const path of files) {
    if (path === MANIFEST_FILE) continue
    entries.push({ path, ...(await hashFile(join(dir, path))) })
  }
  const manifest = Manifest.parse({
    formatVersion: input.formatVersion,
    runId: input.runId,
    createdAt: input.createdAt,
    files: entries,
  })
  await replaceFile(dir, MANIFEST_FILE, toBundleJson(manifest))
  return manifest
}

async function replaceFile(dir: string, path: string, data: string): Promise<void> {
  // Beside the target, in the bundle: a rename within one folder is atomic, across filesystems it is not.
  const temp = join(dir, `.${path}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    await writeDurableFile(temp, data)
    await rename(temp, join(dir, path))
  } catch (e) {
    await rm(temp, { force: true })
    throw e
  }
  await fsyncDir(dir)
}
