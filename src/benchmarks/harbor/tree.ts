import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { lstat, readdir, readlink } from 'node:fs/promises'
import { join, posix } from 'node:path'
import { AgentEvalOpsError } from '../../core/index.ts'

/** A task's tests/, solution/ or environment/ with more entries than this is not a task folder we should walk. */
export const MAX_TREE_ENTRIES = 10_000
/** Nor one nested deeper than this. */
export const MAX_TREE_DEPTH = 32

export interface TreeEntry {
  /** Relative to the tree's root, `/`-separated. */
  path: string
  kind: 'file' | 'symlink'
  /** Absolute. */
  abs: string
}

/**
 * The files and symlinks under `root` in a stable order (folders are walked, never followed through a symlink).
 * Bounded: more than MAX_TREE_ENTRIES entries or MAX_TREE_DEPTH levels is a DATASET_INVALID naming the folder.
 */
export async function listTree(
  root: string,
  skip: (rel: string) => boolean = () => false,
): Promise<TreeEntry[]> {
  const out: TreeEntry[] = []
  let seen = 0
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    if (depth > MAX_TREE_DEPTH) throw tooBig(root, `is nested deeper than ${MAX_TREE_DEPTH} levels`)
    const names = (await readdir(dir)).sort()
    for (const name of names) {
      if (++seen > MAX_TREE_ENTRIES) throw tooBig(root, `has more than ${MAX_TREE_ENTRIES} entries`)
      const abs = join(dir, name)
      const path = rel === '' ? name : posix.join(rel, name)
      if (skip(path)) continue
      const stat = await lstat(abs)
      if (stat.isDirectory()) await walk(abs, path, depth + 1)
      else if (stat.isSymbolicLink()) out.push({ path, kind: 'symlink', abs })
      else if (stat.isFile()) out.push({ path, kind: 'file', abs })
      // Sockets, fifos and devices are not task content.
    }
  }
  await walk(root, '', 0)
  return out
}

/**
 * sha256 over a tree's paths and contents (a symlink by its target, not followed): equal trees hash equally
 * wherever they are, and any change of a name, a byte or a link changes the hash. File modes are not hashed:
 * scripts are run with `bash script`, so their executable bit does not matter.
 */
export async function hashTree(entries: readonly TreeEntry[]): Promise<string> {
  const tree = createHash('sha256')
  for (const entry of entries) {
    const content =
      entry.kind === 'symlink' ? sha256Text(await readlink(entry.abs)) : await hashFile(entry.abs)
    tree.update(`${entry.kind}\0${entry.path}\0${content}\n`)
  }
  return tree.digest('hex')
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256')
  // Streamed: an environment/ may hold a dataset larger than we want in memory at once.
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

function sha256Text(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

function tooBig(root: string, what: string): AgentEvalOpsError {
  return new AgentEvalOpsError('DATASET_INVALID', `the folder ${what}`, {
    location: { file: root },
    hint: 'A Harbor task folder holds a few scripts and seed files; keep large data out of it.',
  })
}
