import type { EvaluatorFinding, TraceEvent } from '../../core/index.ts'
import { formatSteps, type CheckResult } from '../trace-checks/result.ts'
import { buildModel, checkOf, NONE, stepsOf, type Blamed, type Detected, type TraceModel } from './model.ts'
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

/** Calls that were the same call (tool and canonical arguments) and got the same outcome, in order. */
export interface RepeatGroup {
  calls: number[]
  /** The shared result's index (of the first call), or NONE when none of them got one. */
  result: number
}

/**
 * Groups of `minRepeats` or more calls with the same tool, the same canonical arguments and the same outcome: the
 * same result (an error counts as such, its message included), or no result at all. A repeat that brought back
 * something not seen for that call before (re-running a test after each edit, with a new output each time) is
 * progress, not a loop, so it joins no group with the calls before it. Cost: O(calls).
 */
export function repeatGroups(m: TraceModel, minRepeats: number): RepeatGroup[] {
  // Keys are dense ids, so a counting pass needs no map; only calls made often enough are grouped by outcome.
  const counts = new Uint32Array(m.distinctCalls)
  for (let c = 0; c < m.callCount; c++) counts[m.callKey[c]!]!++
  const groups = new Map<number, RepeatGroup>()
  // Result keys are dense too; NONE (-1) shifts to 0.
  const outcomes = m.resultCount + 1
  for (let c = 0; c < m.callCount; c++) {
    const key = m.callKey[c]!
    if (counts[key]! < minRepeats) continue
    const result = m.callResult[c]!
    const id = key * outcomes + (result === NONE ? 0 : m.resultKey[result]! + 1)
    const group = groups.get(id)
    if (group) group.calls.push(c)
    else groups.set(id, { calls: [c], result })
  }
  return [...groups.values()].filter((g) => g.calls.length >= minRepeats)
}

/**
 * The same call returning the same outcome `minRepeats` times or more anywhere in the trace (see repeatGroups);
 * every such call is cited. A group made only of calls a cycle already blames is left out: the cycle says it
 * better.
 */
export function detectRepeats(m: TraceModel, opts: ResolvedOptions, cycles: ReadonlySet<number>): Blamed {
  const detected: Detected[] = []
  const covered = new Set<number>()
  for (const { calls } of repeatGroups(m, opts.minRepeats)) {
    if (calls.every((c) => cycles.has(c))) continue
    const steps = stepsOf(m, calls)
    for (const c of calls) covered.add(c)
    detected.push({
      type: 'repeated_call',
      message:
        `tool "${m.callTool[calls[0]!]}" called ${calls.length} times with the same arguments at ` +
        formatSteps(steps),
      citations: steps,
      wastedCalls: calls.slice(1),
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
