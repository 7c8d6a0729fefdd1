import { TERMINATED_BY, TRIAL_OUTCOMES, type RunSummary } from '../../core/index.ts'
import type { SummarizedTrial } from './task-groups.ts'

export function outcomeCounts(trials: readonly SummarizedTrial[]): RunSummary['outcomes'] {
  const counts: RunSummary['outcomes'] = {}
  // Keys in the enum's order, whatever order trials arrive in: equal runs write equal bytes.
  for (const outcome of TRIAL_OUTCOMES) {
    const n = trials.filter((t) => t.outcome === outcome).length
    if (n > 0) counts[outcome] = n
  }
  return counts
}

/** How the agent's runs ended: completed, each kind of limit, agent error…; `none` when no agent result exists. */
export function terminationCounts(trials: readonly SummarizedTrial[]): RunSummary['terminations'] {
  const counts: RunSummary['terminations'] = {}
  for (const key of [...TERMINATED_BY, 'none'] as const) {
    const n = trials.filter((t) => (t.result?.terminatedBy ?? 'none') === key).length
    if (n > 0) counts[key] = n
  }
  return counts
}
