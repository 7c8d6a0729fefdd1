import { lstat, mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, sep } from 'node:path'
import { AgentEvalOpsError, type ArtifactStore } from '../core/index.ts'

/**
 * Artifacts of trials as files under one root folder. A name comes from a runner, so from an agent: it must be a
 * relative path that stays inside the root — no absolute path, no `..`, and no symlink on the way that leads out.
 */
export class LocalArtifactStore implements ArtifactStore {
  constructor(private readonly root: string) {}

  /** Writes `data` under `name`; returns the path relative to the root. */
  async put(name: string, data: string | Uint8Array): Promise<string> {
    const rel = checkName(name)
    const target = join(this.root, rel)
    await mkdir(dirname(target), { recursive: true })
    await this.checkInside(target)
    await writeFile(target, data)
    return rel
  }

  async get(path: string): Promise<Uint8Array> {
    const target = join(this.root, checkName(path))
    await this.checkInside(target)
    return readFile(target)
  }

  /** The folder holding the target resolves inside the root, and the target itself is no symlink. */
  private async checkInside(target: string): Promise<void> {
    const root = await realpath(this.root)
    const parent = await realpath(dirname(target))
    const rel = relative(root, parent)
    if (rel.startsWith('..') || isAbsolute(rel))
      throw escape(relative(this.root, target), 'a symlink on its path leads outside')
    const stat = await lstat(target).catch(() => undefined)
    if (stat?.isSymbolicLink()) throw escape(relative(this.root, target), 'it is a symlink')
  }
}

/** A name as a safe relative path, or ARTIFACT_PATH_INVALID saying why not. */
function checkName(name: string): string {
  if (name === '' || name.includes('\0')) throw escape(name, 'it is empty or holds a NUL byte')
  if (isAbsolute(name) || /^[A-Za-z]:[\\/]/.test(name) || name.startsWith('\\'))
    throw escape(name, 'it is an absolute path')
  const parts = name.split(/[\\/]+/)
  if (parts.includes('..')) throw escape(name, 'it climbs out with ..')
  return parts.filter((p) => p !== '' && p !== '.').join(sep)
}

function escape(name: string, why: string): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'ARTIFACT_PATH_INVALID',
    `artifact ${JSON.stringify(name)} is refused: ${why}.`,
    {
      hint: 'Name artifacts by a relative path inside the trial, e.g. "out/report.txt".',
    },
  )
}
