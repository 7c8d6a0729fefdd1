import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface GitState {
  sha: string | null
  dirty: boolean | null
}

/**
 * The commit the run was made from; nulls outside a git checkout (or without git), never an error. One `git status`
 * answers both (its v2 header names the commit): a spawn from a process of Vitest's size costs the main thread
 * tens of milliseconds, which every watch-mode rerun would pay twice.
 */
export async function gitState(cwd: string): Promise<GitState> {
  try {
    const { stdout } = await run('git', ['status', '--porcelain=v2', '--branch', '--untracked-files=no'], {
      cwd,
      timeout: 5_000,
    })
    const lines = stdout.split('\n').filter((line) => line !== '')
    const oid = lines.find((line) => line.startsWith('# branch.oid '))?.slice('# branch.oid '.length)
    return {
      // `(initial)` before the first commit
      sha: oid && /^[0-9a-f]{40,64}$/.test(oid) ? oid : null,
      dirty: lines.some((line) => !line.startsWith('#')),
    }
  } catch {
    return { sha: null, dirty: null }
  }
}
