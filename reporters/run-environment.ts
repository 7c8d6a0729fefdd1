import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface GitState {
  sha: string | null
  dirty: boolean | null
}

/** The commit the run was made from; nulls outside a git checkout (or without git), never an error. */
export async function gitState(cwd: string): Promise<GitState> {
  try {
    const [{ stdout: sha }, { stdout: status }] = await Promise.all([
      run('git', ['rev-parse', 'HEAD'], { cwd, timeout: 5_000 }),
      run('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, timeout: 5_000 }),
    ])
    return { sha: sha.trim() || null, dirty: status.trim().length > 0 }
  } catch {
    return { sha: null, dirty: null }
  }
}
