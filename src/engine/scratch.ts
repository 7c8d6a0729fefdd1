import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const roots = new Map<string, Promise<string>>()

/**
 * This process's folder for temporary workspaces of one kind (`<tmp>/agentevalops-<kind>/<pid>/`), created once.
 * Teardown removes each workspace, but a run killed with SIGKILL never tears down: so the first call in a process
 * removes the folders of processes that no longer exist. A live process's folder is never touched; a dead one's
 * whose pid was reused by then survives until that process is gone too.
 */
export function scratchRoot(kind: string, base: string = tmpdir()): Promise<string> {
  const parent = join(base, `agentevalops-${kind.replace(/[^A-Za-z0-9_-]+/g, '_')}`)
  let root = roots.get(parent)
  if (!root) {
    root = (async () => {
      await mkdir(parent, { recursive: true })
      await removeStale(parent)
      const own = join(parent, String(process.pid))
      await mkdir(own, { recursive: true })
      return own
    })()
    roots.set(parent, root)
    // A failure (a read-only temp folder) must not stick: the next trial tries again and reports it itself.
    root.catch(() => roots.delete(parent))
  }
  return root
}

/** The pids whose folders were removed. */
export async function removeStale(parent: string): Promise<number[]> {
  const removed: number[] = []
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const pid = Number(name)
    if (!/^\d+$/.test(name) || pid === process.pid || isProcessAlive(pid)) continue
    await rm(join(parent, name), { recursive: true, force: true }).catch(() => undefined)
    removed.push(pid)
  }
  return removed
}

/**
 * Whether a process of this pid is running (ours or not). A zombie is not: a killed run's workers, orphaned, may
 * wait a while for a container's init to reap them. After a process exits its pid may be reused, which this cannot
 * tell.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (e) {
    // EPERM: it exists and belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    // "pid (comm) state …"; comm may hold spaces and parentheses, so the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    // No /proc (not Linux), or it just went.
    return !existsSync('/proc')
  }
}
