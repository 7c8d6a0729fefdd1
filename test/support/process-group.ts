import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'

/** Live (non-zombie) members of process group `pgid`: a killed group's orphans may linger as zombies in a container. */
export async function liveGroupMembers(pgid: number): Promise<number[]> {
  if (!existsSync('/proc')) {
    try {
      process.kill(-pgid, 0)
      return [pgid]
    } catch {
      return []
    }
  }
  const live: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = await readFile(`/proc/${name}/stat`, 'utf8')
    } catch {
      continue // the process ended while we looked
    }
    // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses, so split after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) === pgid && state !== 'Z') live.push(Number(name))
  }
  return live
}
