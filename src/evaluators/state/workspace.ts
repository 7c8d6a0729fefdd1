import { open, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path'
import { AgentEvalOpsError, errorMessage } from '../../core/index.ts'

/**
 * Why a check's path can never stay inside the workspace, whatever the agent did: that is the configuration's
 * fault, so it is reported before any trial runs. Undefined when the path is fine.
 */
export function staticPathProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'contains a NUL character'
  if (isAbsolute(path)) return 'is absolute; give it relative to the workspace'
  if (escapes(normalize(path))) return 'leads out of the workspace (..)'
  return undefined
}

function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)
}

/** The workspace's real path; a workspace that is not an existing directory cannot be judged. */
export async function realWorkspace(dir: string): Promise<string> {
  const hint =
    'Point stateBased({ workdir }) at an existing directory, or have the benchmark prepare one (env.workdir).'
  let real: string
  try {
    real = await realpath(resolve(dir))
  } catch (e) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `the workspace ${JSON.stringify(dir)} does not exist`, {
      hint,
      cause: e,
    })
  }
  if (!(await stat(real)).isDirectory())
    throw new AgentEvalOpsError('CONFIG_INVALID', `the workspace ${JSON.stringify(dir)} is not a directory`, {
      hint,
    })
  return real
}

export type Resolved =
  | { kind: 'inside'; real: string }
  | { kind: 'missing' }
  /** The path resolves, through a symlink the agent left, to `real` outside the workspace. */
  | { kind: 'escapes'; real: string }
  | { kind: 'unresolvable'; reason: string }

/**
 * Resolves every symlink on the way, so what is read afterwards is the file the check is really about. A dangling
 * symlink counts as missing: there is no file behind it.
 */
export async function resolveInWorkspace(root: string, path: string): Promise<Resolved> {
  let real: string
  try {
    real = await realpath(join(root, path))
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' }
    return { kind: 'unresolvable', reason: code ?? errorMessage(e) }
  }
  return escapes(relative(root, real)) ? { kind: 'escapes', real } : { kind: 'inside', real }
}

/** Files larger than this are not read: a runaway agent can write gigabytes, and the evaluator must not hold them. */
export const MAX_READ_BYTES = 16 * 1024 * 1024

export type Read =
  | { kind: 'text'; text: string }
  | { kind: 'not_a_file'; what: string }
  | { kind: 'too_large'; size: number }
  | { kind: 'unreadable'; reason: string }

/**
 * Reads a regular file as UTF-8. The type is checked before opening because opening a FIFO the agent left behind
 * would block the evaluator for ever.
 */
export async function readWorkspaceFile(real: string): Promise<Read> {
  try {
    const info = await stat(real)
    if (info.isDirectory()) return { kind: 'not_a_file', what: 'a directory' }
    if (!info.isFile()) return { kind: 'not_a_file', what: 'not a regular file' }
    const handle = await open(real, 'r')
    try {
      const { size } = await handle.stat()
      if (size > MAX_READ_BYTES) return { kind: 'too_large', size }
      return { kind: 'text', text: await handle.readFile('utf8') }
    } finally {
      await handle.close()
    }
  } catch (e) {
    return { kind: 'unreadable', reason: (e as NodeJS.ErrnoException).code ?? errorMessage(e) }
  }
}
