import { existsSync, readdirSync, readFileSync } from 'node:fs'

/**
 * Whether any process of group `pgid` is still alive. A killed process stays a zombie until its parent reaps it,
 * and an orphan's new parent in a container may never do so: on Linux, zombies (state Z in /proc) do not count.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw e
  }
  if (!existsSync('/proc/self/stat')) return true
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8')
    } catch {
      continue // ended while we looked
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses: split after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) === pgid && state !== 'Z') return true
  }
  return false
}
