import type { MetricSummary, PassAtK, SummarySettings } from '../../core/index.ts'
import { passAtK, passHatK, wilsonInterval } from '../stats/index.ts'
import { estimateOf } from './estimate.ts'
import { reduceTrials } from './reduce.ts'
import { clusterOf, type SummarizedTrial, type TaskGroup } from './task-groups.ts'

/** What one trial says about a metric: its score and whether it passed; undefined when the trial has no say. */
export type MetricPick = (trial: SummarizedTrial) => { score: number; passed: boolean } | undefined

/** Per task: n trials with a say, c of them passed, and the reduced score and pass values. */
export interface TaskTally {
  group: TaskGroup
  n: number
  c: number
  score: number
  pass: number
}

export function tallyTasks(
  groups: readonly TaskGroup[],
  pick: MetricPick,
  settings: SummarySettings,
): TaskTally[] {
  const tallies: TaskTally[] = []
  for (const group of groups) {
    const picked = group.trials.map(pick).filter((p) => p !== undefined)
    if (picked.length === 0) continue
    tallies.push({
      group,
      n: picked.length,
      c: picked.filter((p) => p.passed).length,
      score: reduceTrials(
        picked.map((p) => p.score),
        settings.reducer,
      ),
      pass: reduceTrials(
        picked.map((p) => (p.passed ? 1 : 0)),
        settings.reducer,
      ),
    })
  }
  return tallies
}

export function metricSummary(tallies: readonly TaskTally[], settings: SummarySettings): MetricSummary {
  const clusters = tallies.map((t) => clusterOf(t.group, settings.clusterBy))
  const trials = tallies.reduce((sum, t) => sum + t.n, 0)
  const passed = tallies.reduce((sum, t) => sum + t.c, 0)
  const scores = tallies.map((t) => t.score)
  const passes = tallies.map((t) => t.pass)
  const score = estimateOf({ values: scores, clusters }, settings)
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
    passAtK: passAtKTable(tallies),
  }
}

/**
 * pass@k and pass^k for k = 1 … the most trials any task has, each the mean over tasks of the per-task unbiased
 * estimate. Where some task has fewer than k trials the figure is null (undefined, not zero).
 */
export function passAtKTable(tallies: readonly Pick<TaskTally, 'n' | 'c'>[]): PassAtK[] {
  const most = Math.max(0, ...tallies.map((t) => t.n))
  const rows: PassAtK[] = []
  for (let k = 1; k <= most; k++) {
    const defined = tallies.filter((t) => t.n >= k)
    const undefinedTasks = tallies.length - defined.length
    const average = (f: (n: number, c: number, k: number) => number | null) =>
      undefinedTasks > 0
        ? null
        : clampUnit(defined.reduce((sum, t) => sum + f(t.n, t.c, k)!, 0) / defined.length)
    rows.push({
      k,
      passAtK: average(passAtK),
      passHatK: average(passHatK),
      tasks: defined.length,
      undefinedTasks,
    })
  }
  return rows
}

/** A mean of values in [0, 1] can land a rounding error outside it. */
function clampUnit(x: number): number {
  return Math.min(1, Math.max(0, x))
}
