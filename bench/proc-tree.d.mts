export function treePids(pid: number): number[]
export function statTimes(pid: number): { selfMs: number; reapedMs: number }
export function treeCpuMs(pid: number): number
export function treeRssKb(pid: number): number
export function reapedChildrenCpuMs(): number
