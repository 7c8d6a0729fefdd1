import { TERMINATED_BY, TRIAL_OUTCOMES, type RunSummary } from '../../core/index.ts'
import type { SummarizedTrial } from './task-groups.ts'

/** How trials ended (their outcome) and how the agent's runs ended (`none` when no agent result exists). */
export class OutcomeCounts {
  private readonly outcomes = new Map<string, number>()
  private readonly terminations = new Map<string, number>()

  add(trial: Pick<SummarizedTrial, 'outcome' | 'result'>): void {
    bump(this.outcomes, trial.outcome)
    bump(this.terminations, trial.result?.terminatedBy ?? 'none')
  }

  // Keys in the enum's order, whatever order trials arrive in: equal runs write equal bytes.
  outcomeCounts(): RunSummary['outcomes'] {
    return ordered(this.outcomes, TRIAL_OUTCOMES)
  }

  terminationCounts(): RunSummary['terminations'] {
    return ordered(this.terminations, [...TERMINATED_BY, 'none'] as const)
  }
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1)
}

function ordered<K extends string>(
  counts: ReadonlyMap<string, number>,
  keys: readonly K[],
): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {}
  for (const key of keys) {
    const n = counts.get(key)
    if (n !== undefined) out[key] = n
  }
  return out
}
