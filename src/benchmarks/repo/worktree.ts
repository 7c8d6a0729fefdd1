import { randomBytes } from 'node:crypto'
import { statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { AgentEvalOpsError, safeFileStem, type EnvHandle } from '../../core/index.ts'
import { scratchRoot } from '../../engine/index.ts'
import { git, runGit } from './git.ts'

/** The scratchRoot kind of the worktrees: `<base>/agentevalops-repo/<pid>/`. */
export const SCRATCH_KIND = 'repo'

/** What prepare() returns: the worktree the agent edits, and where it came from. */
export interface RepoEnv extends EnvHandle {
  /** The worktree, checked out (detached) at `baseCommit`. */
  workdir: string
  /** The source repository (absolute). */
  repoPath: string
  /** `base_commit` resolved to a full commit id. */
  baseCommit: string
}

/**
 * `git worktree prune` once per source repository and scratch root in this process, after scratchRoot removed the
 * folders of dead processes: git then forgets the worktrees that lived in them.
 */
const pruned = new Map<string, Promise<void>>()

function pruneOnce(root: string, repoPath: string): Promise<void> {
  const key = `${root}\0${repoPath}`
  let done = pruned.get(key)
  if (!done) {
    done = git(repoPath, ['worktree', 'prune']).then(() => undefined)
    pruned.set(key, done)
    done.catch(() => pruned.delete(key))
  }
  return done
}

/**
 * git's worktree bookkeeping (.git/worktrees/) is not safe under concurrent changes: a `prune` that runs while an
 * `add` is half done deletes the new entry ("failed to read …/commondir"). Concurrent trials of one repository
 * therefore change it one at a time within this process.
 */
const adminQueues = new Map<string, Promise<unknown>>()

function serially<T>(repoPath: string, fn: () => Promise<T>): Promise<T> {
  const next = (adminQueues.get(repoPath) ?? Promise.resolve()).then(fn, fn)
  const settled = next.catch(() => undefined)
  adminQueues.set(repoPath, settled)
  void settled.then(() => {
    if (adminQueues.get(repoPath) === settled) adminQueues.delete(repoPath)
  })
  return next
}

/** A detached worktree of `repoPath` at `baseCommit`, in this process's scratch folder. */
export async function addWorktree(
  repoPath: string,
  baseCommit: string,
  taskId: string,
  scratchBase: string | undefined,
): Promise<RepoEnv> {
  if (!isDirectory(repoPath)) {
    throw new AgentEvalOpsError('INFRA_FAILURE', `the repository ${repoPath} does not exist`, {
      hint: "Clone it there, or fix the instance's `repo` (a path relative to the instances file, or absolute).",
    })
  }
  const root = await scratchRoot(SCRATCH_KIND, scratchBase)
  await serially(repoPath, () => pruneOnce(root, repoPath))
  const sha = await resolveCommit(repoPath, baseCommit)
  const workdir = join(root, `${safeFileStem(taskId)}-${randomBytes(4).toString('hex')}`)
  await serially(repoPath, () => git(repoPath, ['worktree', 'add', '--detach', workdir, sha]))
  return { workdir, repoPath, baseCommit: sha }
}

async function resolveCommit(repoPath: string, revision: string): Promise<string> {
  try {
    return (await git(repoPath, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`])).trim()
  } catch (e) {
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `base_commit ${revision} is not a commit of the repository ${repoPath}`,
      {
        hint: 'Fetch it (git fetch origin <commit>) or use a clone that has the full history.',
        cause: e,
      },
    )
  }
}

/**
 * Removes the worktree, its folder and git's record of it. Never throws for a worktree that is already gone; a
 * folder inside the scratch root that cannot be removed throws (teardown warns). Folders outside the scratch root
 * are never deleted, whatever the env says.
 */
export async function removeWorktree(env: EnvHandle, scratchBase: string | undefined): Promise<void> {
  const { workdir, repoPath } = env
  if (typeof workdir !== 'string') return
  const root = await scratchRoot(SCRATCH_KIND, scratchBase)
  const ours = isInside(workdir, root)
  const repo = typeof repoPath === 'string' && isDirectory(repoPath) ? repoPath : undefined
  if (repo && ours) await serially(repo, () => runGit(repo, ['worktree', 'remove', '--force', workdir]))
  if (ours) await rm(workdir, { recursive: true, force: true })
  if (repo) await serially(repo, () => runGit(repo, ['worktree', 'prune']))
}

/**
 * Runs `fn` with a folder of its own beside the worktree (in the scratch root when prepare() made it), removed
 * afterwards: patch files for `git apply`, a spare index.
 */
export async function withTempDir<T>(workdir: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(dirname(workdir), `${basename(workdir)}.tmp-`))
  try {
    return await fn(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Whether `path` lies strictly inside `root`. */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, resolve(path))
  return rel !== '' && rel.split(sep)[0] !== '..' && !isAbsolute(rel)
}
