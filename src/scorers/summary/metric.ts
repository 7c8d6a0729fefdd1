import {
  heldColumns,
  type MetricSummary,
  type NumberColumn,
  type NumberColumns,
  type PassAtK,
  type SummarySettings,
  type TrialReducer,
} from '../../core/index.ts'
import { passAtK, passHatK, wilsonInterval } from '../stats/index.ts'
import { estimateOf } from './estimate.ts'
import { reduceTrials } from './reduce.ts'
import type { SummarizedTrial } from './task-groups.ts'

/** What one trial says about a metric: its score and whether it passed; undefined when the trial has no say. */
export type MetricPick = (trial: SummarizedTrial) => { score: number; passed: boolean } | undefined

/**
 * The cluster a task's value belongs to: a label's cluster by its text, or the task's own cluster by the task's
 * ordinal in the run. The clustered standard error reads only which values share a cluster (and in what order
 * clusters first appear), so an ordinal stands for the task's key and costs a number, not a string, per task.
 */
export type Cluster = string | number

export function clusterText(cluster: Cluster): string {
  return typeof cluster === 'number' ? `task:${cluster}` : cluster
}

/**
 * One metric's per-task figures in task order, a task at a time: n trials with a say, c of them passed, and the
 * reduced score and pass values. A task in which no trial has a say adds nothing.
 */
export class MetricColumns {
  private readonly n: NumberColumn
  private readonly c: NumberColumn
  private readonly score: NumberColumn
  private readonly pass: NumberColumn
  /** A task's own cluster as its ordinal (>= 0), a label's as -1 - its index in `labels`. */
  private readonly clusters: NumberColumn
  private readonly labels: string[] = []
  private readonly labelCodes = new Map<string, number>()

  constructor(columns: NumberColumns = heldColumns) {
    this.n = columns.column()
    this.c = columns.column()
    this.score = columns.column()
    this.pass = columns.column()
    this.clusters = columns.column()
  }

  add(trials: readonly SummarizedTrial[], pick: MetricPick, cluster: Cluster, reducer: TrialReducer): void {
    const scores: number[] = []
    const passes: number[] = []
    let passed = 0
    for (const trial of trials) {
      const said = pick(trial)
      if (said === undefined) continue
      scores.push(said.score)
      passes.push(said.passed ? 1 : 0)
      if (said.passed) passed++
    }
    if (scores.length === 0) return
    this.n.push(scores.length)
    this.c.push(passed)
    this.score.push(reduceTrials(scores, reducer))
    this.pass.push(reduceTrials(passes, reducer))
    this.clusters.push(this.clusterCode(cluster))
  }

  summary(settings: SummarySettings): MetricSummary {
    const clusters = this.clusters
      .values()
      .map((code) => (code >= 0 ? clusterText(code) : this.labels[-1 - code]!))
    const n = this.n.values()
    const c = this.c.values()
    let trials = 0
    let passed = 0
    for (let i = 0; i < n.length; i++) {
      trials += n[i]!
      passed += c[i]!
    }
    const scores = this.score.values()
    const score = estimateOf({ values: scores, clusters }, settings)
    const passes = this.pass.values()
    // A pass/fail evaluator's scores are its passes: the same values, the same estimate, half the bootstrap work.
    const same = scores.every((v, i) => v === passes[i])
    return {
      score,
      pass: same ? score : estimateOf({ values: passes, clusters }, settings),
      passCount: {
        trials,
        passed,
        rate: trials === 0 ? null : passed / trials,
        wilson: wilsonInterval(passed, trials, settings.confidence),
      },
      passAtK: passAtKTable(n, c),
    }
  }

  private clusterCode(cluster: Cluster): number {
    if (typeof cluster === 'number') return cluster
    let code = this.labelCodes.get(cluster)
    if (code === undefined) {
      code = -1 - this.labels.length
      this.labels.push(cluster)
      this.labelCodes.set(cluster, code)
    }
    return code
  }
}

/**
 * pass@k and pass^k for k = 1 … the most trials any task has, each the mean over tasks of the per-task unbiased
 * estimate from its n trials and c passes. Where some task has fewer than k trials the figure is null (undefined,
 * not zero).
 */
export function passAtKTable(n: readonly number[], c: readonly number[]): PassAtK[] {
  let most = 0
  for (const trials of n) most = Math.max(most, trials)
  const rows: PassAtK[] = []
  for (let k = 1; k <= most; k++) {
    let defined = 0
    for (const trials of n) if (trials >= k) defined++
    const undefinedTasks = n.length - defined
    const average = (f: (n: number, c: number, k: number) => number | null) => {
      if (undefinedTasks > 0) return null
      let sum = 0
      for (let i = 0; i < n.length; i++) sum += f(n[i]!, c[i]!, k)!
      return clampUnit(sum / defined)
    }
    rows.push({ k, passAtK: average(passAtK), passHatK: average(passHatK), tasks: defined, undefinedTasks })
  }
  return rows
}

/** A mean of values in [0, 1] can land a rounding error outside it. */
function clampUnit(x: number): number {
  return Math.min(1, Math.max(0, x))
}
