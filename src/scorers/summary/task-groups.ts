import type { EvaluatorScore, RunnerInfo, TerminatedBy, TrialOutcome, Usage } from '../../core/index.ts'

/**
 * What the statistics read of a trial, and nothing more: a reporter that folds a run as it goes keeps this per
 * trial, not the whole record. A ScoredTrial is one.
 */
export interface SummarizedTrial {
  benchmark: { id: string }
  taskId: string
  trial: number
  labels: Readonly<Record<string, string>>
  passed: boolean
  outcome: TrialOutcome
  result: { terminatedBy: TerminatedBy } | null
  scores: readonly SummarizedScore[]
  usage: Usage
  runner: RunnerInfo
}

export type SummarizedScore = Pick<EvaluatorScore, 'evaluatorId' | 'kind' | 'score' | 'passed' | 'error'>

/** The trials of one task, in trial order. */
export interface TaskGroup<T extends SummarizedTrial = SummarizedTrial> {
  benchmarkId: string
  taskId: string
  /** `benchmark/task`: equal task ids in two benchmarks are different tasks. */
  key: string
  labels: Readonly<Record<string, string>>
  trials: T[]
}

export function taskKey(trial: Pick<SummarizedTrial, 'benchmark' | 'taskId'>): string {
  return `${trial.benchmark.id}/${trial.taskId}`
}

/** Groups trials by task, tasks sorted by benchmark then task id, so the summary does not depend on arrival order. */
export function groupByTask<T extends SummarizedTrial>(trials: readonly T[]): TaskGroup<T>[] {
  const groups = new Map<string, TaskGroup<T>>()
  for (const trial of trials) {
    const key = taskKey(trial)
    let group = groups.get(key)
    if (!group) {
      group = { benchmarkId: trial.benchmark.id, taskId: trial.taskId, key, labels: trial.labels, trials: [] }
      groups.set(key, group)
    }
    group.trials.push(trial)
  }
  const sorted = [...groups.values()].sort(
    (a, b) => compareText(a.benchmarkId, b.benchmarkId) || compareText(a.taskId, b.taskId),
  )
  for (const group of sorted) group.trials.sort((a, b) => a.trial - b.trial)
  return sorted
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Trials whose failure was the harness's, not the agent's. */
export function isInfraFailure(trial: Pick<SummarizedTrial, 'outcome'>): boolean {
  return trial.outcome === 'infra_failure' || trial.outcome === 'not_evaluated'
}
