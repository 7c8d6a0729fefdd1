import type { EvaluatorFinding, TraceEvent } from '../../core/index.ts'
import { formatSteps, type CheckResult } from '../trace-checks/result.ts'
import { buildModel, checkOf, stepsOf, type Blamed, type Detected, type TraceModel } from './model.ts'
import { resolveOptions, type ResolvedOptions, type TraceQualityOptions } from './options.ts'

/** True when `block` is a shorter block repeated (A,B,A,B): that is the shorter cycle, reported on its own. */
function repeatsShorterBlock(block: ArrayLike<number>): boolean {
  const p = block.length
  for (let d = 1; d < p; d++) {
    if (p % d !== 0) continue
    let periodic = true
    for (let j = d; j < p && periodic; j++) periodic = block[j] === block[j - d]
    if (periodic) return true
  }
  return false
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i)
}

/**
 * Cycles of 2..maxCycleLength calls repeated with nothing new learned. For each period p, call i continues the
 * cycle when it is the same call as call i − p and brought no new observation (see TraceModel.callFresh); a run of
 * such calls from a to b makes calls a − p .. b one periodic stretch. The first pass through the block may learn
 * things (it is the first time); every call after it must not. Cost: O(calls · maxCycleLength).
 *
 * A stretch counts when its block occurs `minCycleRepeats` times in full; a trailing partial pass is cited too,
 * as it is just as wasted.
 */
export function detectCycles(m: TraceModel, opts: ResolvedOptions): Blamed {
  const detected: Detected[] = []
  const covered = new Set<number>()

  const stretch = (p: number, a: number, b: number) => {
    const start = a - p
    const length = b - start + 1
    const times = Math.floor(length / p)
    if (times < opts.minCycleRepeats || repeatsShorterBlock(m.callKey.subarray(start, a))) return
    const calls = range(start, b)
    const steps = stepsOf(m, calls)
    for (const c of calls) covered.add(c)
    detected.push({
      type: 'cycle',
      message:
        `cycle ${m.callTool.slice(start, a).join(' → ')} repeated ${times} times with no new observation: ` +
        `${length} calls at ${formatSteps(steps)}`,
      citations: steps,
      wastedCalls: range(a, b),
    })
  }

  const { callKey, callFresh, callCount } = m
  for (let p = 2; p <= opts.maxCycleLength; p++) {
    let runStart = -1
    for (let i = p; i < callCount; i++) {
      if (callKey[i] === callKey[i - p] && callFresh[i] === 0) {
        if (runStart < 0) runStart = i
      } else if (runStart >= 0) {
        stretch(p, runStart, i - 1)
        runStart = -1
      }
    }
    if (runStart >= 0) stretch(p, runStart, callCount - 1)
  }
  return { detected, covered }
}

/**
 * Calls of one tool with the same canonical arguments, `minRepeats` times or more anywhere in the trace; every
 * repeat is cited. A group made only of calls a cycle already blames is left out: the cycle says it better.
 */
export function detectRepeats(m: TraceModel, opts: ResolvedOptions, cycles: ReadonlySet<number>): Blamed {
  // Keys are dense ids, so a counting pass needs no map; only keys that repeat enough get a list.
  const counts = new Uint32Array(m.distinctCalls)
  for (let c = 0; c < m.callCount; c++) counts[m.callKey[c]!]!++
  const groups = new Map<number, number[]>()
  for (let c = 0; c < m.callCount; c++) {
    const key = m.callKey[c]!
    if (counts[key]! < opts.minRepeats) continue
    const group = groups.get(key)
    if (group) group.push(c)
    else groups.set(key, [c])
  }
  const detected: Detected[] = []
  const covered = new Set<number>()
  for (const group of groups.values()) {
    if (group.every((c) => cycles.has(c))) continue
    const steps = stepsOf(m, group)
    for (const c of group) covered.add(c)
    detected.push({
      type: 'repeated_call',
      message: `tool "${m.callTool[group[0]!]}" called ${group.length} times with the same arguments at ${formatSteps(steps)}`,
      citations: steps,
      wastedCalls: group.slice(1),
    })
  }
  return { detected, covered }
}

export type CycleOptions = Pick<TraceQualityOptions, 'maxCycleLength' | 'minCycleRepeats'>

/**
 * Fails when a block of 2..maxCycleLength calls (default 4) occurs `minCycleRepeats` times in a row (default 3)
 * with no new tool result or observation after its first pass.
 */
export function findCycles(
  events: readonly TraceEvent[],
  opts: CycleOptions = {},
): CheckResult & { findings: EvaluatorFinding[] } {
  const resolved = resolveOptions(opts, 'findCycles')
  const { detected } = detectCycles(buildModel(events), resolved)
  return checkOf(
    detected,
    `no cycle of 2 to ${resolved.maxCycleLength} calls repeated ${resolved.minCycleRepeats} or more times ` +
      'without a new observation',
  )
}
