import { AgentEvalOpsError, type TraceEvent } from '../../core/index.ts'
import { repeatGroups } from '../trace-quality/loops.ts'
import { buildModel, stepsOf } from '../trace-quality/model.ts'
import { formatSteps, type CheckResult } from './result.ts'

export interface LoopOptions {
  /** How many identical calls with the same outcome make a loop (default 3). */
  minRepeats?: number
  /**
   * Only count repeats that fall within this many consecutive tool calls. Without it the whole trace counts, so
   * an agent that legitimately re-reads a file at the start and the end is flagged too; a window spares it.
   */
  window?: number
}

interface Loop {
  tool: string
  steps: number[]
}

/** The largest cluster of `positions` (indexes into the tool-call sequence) that fits in `window` calls. */
function densestCluster(positions: readonly number[], window: number): [number, number] {
  let best: [number, number] = [0, 0]
  let end = 0
  for (let start = 0; start < positions.length; start++) {
    while (end + 1 < positions.length && positions[end + 1]! - positions[start]! < window) end++
    if (end - start > best[1] - best[0]) best = [start, end]
  }
  return best
}

/**
 * Fails when the same tool is called with the same (canonical JSON) arguments `minRepeats` times or more and gets
 * the same outcome each time (the same result, the same error, or none). Repeats that each brought something new
 * (a test re-run after every edit, with a new output each time) are progress, not a loop.
 */
export function findLoops(events: readonly TraceEvent[], opts: LoopOptions = {}): CheckResult {
  const minRepeats = opts.minRepeats ?? 3
  if (!Number.isInteger(minRepeats) || minRepeats < 2) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `findLoops: minRepeats must be an integer of at least 2, got ${minRepeats}`,
    )
  }
  if (opts.window !== undefined && (!Number.isInteger(opts.window) || opts.window < minRepeats)) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `findLoops: window must be an integer of at least minRepeats (${minRepeats})`,
    )
  }

  const model = buildModel(events)
  const loops: Loop[] = []
  // Call indexes are positions in the tool-call sequence, which is what the window counts.
  for (const { calls } of repeatGroups(model, minRepeats)) {
    const [from, to] = opts.window === undefined ? [0, calls.length - 1] : densestCluster(calls, opts.window)
    if (to - from + 1 < minRepeats) continue
    loops.push({
      tool: model.callTool[calls[0]!]!,
      steps: stepsOf(model, calls.slice(from, to + 1)),
    })
  }

  if (loops.length === 0) {
    return {
      pass: true,
      message: `no tool was called ${minRepeats} or more times with the same arguments`,
      steps: [],
    }
  }
  const message = loops
    .map(
      (l) =>
        `tool "${l.tool}" called ${l.steps.length} times with the same arguments at ${formatSteps(l.steps)}`,
    )
    .join('; ')
  return { pass: false, message, steps: loops.flatMap((l) => l.steps).sort((a, b) => a - b) }
}
