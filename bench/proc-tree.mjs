// What a process tree costs, read from Linux's /proc: its resident memory now, and the CPU it has used so far.
// A process's CPU is counted once: while it runs, as its own utime+stime; once reaped, inside its parent's
// cutime+cstime (the kernel adds a child's own and its reaped descendants' time to its parent's at wait()).
import { readFileSync, readdirSync } from 'node:fs'

const TICK_MS = 10 // USER_HZ is 100 on every Linux ABI Node runs on (`getconf CLK_TCK`)

const readOr = (path, fallback) => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return fallback // the process ended while we looked
  }
}

/** The direct children of `pid`, from each of its threads' `children` list. */
function childrenOf(pid) {
  let tids
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  const kids = []
  for (const tid of tids) {
    for (const id of readOr(`/proc/${pid}/task/${tid}/children`, '').split(' ')) if (id) kids.push(Number(id))
  }
  return kids
}

/** `pid` and all its live descendants. */
export function treePids(pid) {
  const out = []
  const stack = [pid]
  while (stack.length) {
    const p = stack.pop()
    out.push(p)
    stack.push(...childrenOf(p))
  }
  return out
}

/** utime, stime, cutime, cstime (fields 14–17 of /proc/<pid>/stat, after the parenthesised command). */
export function statTimes(pid) {
  const stat = readOr(`/proc/${pid}/stat`, '')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state), so field n is fields[n - 3]
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i] ?? 0))
  return { selfMs: (utime + stime) * TICK_MS, reapedMs: (cutime + cstime) * TICK_MS }
}

/** CPU (user+sys, ms) used so far by `pid`, its live descendants and every descendant already reaped in the tree. */
export function treeCpuMs(pid) {
  let total = 0
  for (const p of treePids(pid)) {
    const { selfMs, reapedMs } = statTimes(p)
    total += selfMs + reapedMs
  }
  return total
}

/** Resident memory (KiB) of `pid` and all its live descendants (Vitest's workers are child processes). */
export function treeRssKb(pid) {
  let total = 0
  for (const p of treePids(pid))
    total += Number(/^VmRSS:\s+(\d+)/m.exec(readOr(`/proc/${p}/status`, ''))?.[1] ?? 0)
  return total
}

/** CPU (ms) of this process's children reaped so far, with their own reaped descendants (getrusage CHILDREN). */
export const reapedChildrenCpuMs = () => statTimes(process.pid).reapedMs
