import { canonicalJson, type TraceEvent, type ScoredTrial } from '../core/index.ts'
import { recordKey, TrialResolver, trialKeyString } from './layout.ts'

export type ReplayVerdict = 'MATCH' | 'DIFFER' | 'CODE_CHANGED'

export interface TrialComparison {
  benchmark: string
  taskId: string
  trial: number
  verdict: ReplayVerdict
  /** Why it differs, e.g. `step 3: agent.tool_result differs`; empty on MATCH. */
  reasons: string[]
  /** The first step where the agent's behaviour parted, when it did. */
  step: number | null
}

export interface RunSide {
  trials: readonly ScoredTrial[]
  events: readonly TraceEvent[]
  gitSha: string | null
}

/** Relative cost difference that still counts as the same behaviour (token counts may be re-estimated). */
export const COST_TOLERANCE = 0.05

// What the agent did, not when or how fast: timestamps, span ids and latencies differ on every run.
const VOLATILE = new Set(['latencyMs', 'retryInMs'])
const BEHAVIOUR_KINDS = new Set<TraceEvent['kind']>([
  'agent.plan',
  'agent.model_call',
  'agent.tool_call',
  'agent.tool_result',
  'agent.observation',
  'agent.final_answer',
])

function behaviourOf(event: TraceEvent): string {
  const payload = Object.fromEntries(Object.entries(event.payload).filter(([k]) => !VOLATILE.has(k)))
  return canonicalJson({ kind: event.kind, payload })
}

const keyOf = (t: ScoredTrial) => trialKeyString(recordKey(t))

/** Each trial's events, by trial; an event that does not name its benchmark (format 1, 2) is its trial's. */
function groupEvents(side: RunSide): Map<string, TraceEvent[]> {
  const resolver = new TrialResolver(side.trials.map(recordKey))
  const byTrial = new Map<string, TraceEvent[]>()
  for (const e of side.events) {
    const key = trialKeyString(resolver.keyOf(e))
    const list = byTrial.get(key) ?? []
    list.push(e)
    byTrial.set(key, list)
  }
  for (const list of byTrial.values()) list.sort((a, b) => a.step - b.step)
  return byTrial
}

/** The first step at which two trials' agent events part, and how. */
function firstDifference(
  a: readonly TraceEvent[],
  b: readonly TraceEvent[],
): { step: number; why: string } | null {
  const left = a.filter((e) => BEHAVIOUR_KINDS.has(e.kind))
  const right = b.filter((e) => BEHAVIOUR_KINDS.has(e.kind))
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i]
    const y = right[i]
    if (x === undefined) return { step: y!.step, why: `step ${y!.step}: the replay has an extra ${y!.kind}` }
    if (y === undefined) return { step: x.step, why: `step ${x.step}: the replay stops before ${x.kind}` }
    if (behaviourOf(x) !== behaviourOf(y)) {
      const what = x.kind === y.kind ? `${x.kind} differs` : `${x.kind} became ${y.kind}`
      return { step: x.step, why: `step ${x.step}: ${what}` }
    }
  }
  return null
}

/**
 * Compares a replayed run with the original, trial by trial: the same success, the same agent events (tool calls,
 * their results, the answer…), the same ending, and a cost within ±5 %. A trial that differs while the code's git
 * commit changed is CODE_CHANGED: the replay shows the change's effect rather than a broken recording.
 */
export function compareRuns(original: RunSide, replayed: RunSide): TrialComparison[] {
  const replayedTrials = new Map(replayed.trials.map((t) => [keyOf(t), t]))
  const originalEvents = groupEvents(original)
  const replayedEvents = groupEvents(replayed)
  const codeChanged =
    original.gitSha !== null && replayed.gitSha !== null && original.gitSha !== replayed.gitSha
  return original.trials.map((before) => {
    const after = replayedTrials.get(keyOf(before))
    const reasons: string[] = []
    let step: number | null = null
    if (after === undefined) {
      reasons.push('the replay has no such trial')
    } else {
      const diff = firstDifference(
        originalEvents.get(keyOf(before)) ?? [],
        replayedEvents.get(keyOf(after)) ?? [],
      )
      if (diff) {
        step = diff.step
        reasons.push(diff.why)
      }
      const [endBefore, endAfter] = [before.result?.terminatedBy ?? null, after.result?.terminatedBy ?? null]
      if (endBefore !== endAfter) reasons.push(`ended ${endAfter ?? 'without running'}, not ${endBefore}`)
      if ((before.result?.success ?? false) !== (after.result?.success ?? false))
        reasons.push(`success ${after.result?.success ?? false}, not ${before.result?.success ?? false}`)
      const [costBefore, costAfter] = [before.usage.costUsd, after.usage.costUsd]
      if (Math.abs(costAfter - costBefore) > COST_TOLERANCE * Math.max(costBefore, 1e-12))
        reasons.push(`cost $${costAfter.toFixed(6)}, not $${costBefore.toFixed(6)} (beyond ±5%)`)
    }
    const verdict: ReplayVerdict = reasons.length === 0 ? 'MATCH' : codeChanged ? 'CODE_CHANGED' : 'DIFFER'
    return {
      benchmark: before.benchmark.id,
      taskId: before.taskId,
      trial: before.trial,
      verdict,
      reasons,
      step,
    }
  })
}
