import type {
  EvaluatorKind,
  EvaluatorSummary,
  RunSummary,
  Scorer,
  SummarySettings,
} from '../../core/index.ts'
import { headlineOf } from './headline.ts'
import { metricSummary, tallyTasks } from './metric.ts'
import { outcomeCounts, terminationCounts } from './outcomes.ts'
import { resolveSummarySettings, type SummaryOptions } from './settings.ts'
import { groupByTask, compareText, type SummarizedTrial, type TaskGroup } from './task-groups.ts'
import { categorySummaries, taskSummaries } from './task-table.ts'
import { usageSummary } from './usage.ts'

/**
 * The version of the method summarizeTrials computes, stamped on every summary it writes. Raise it whenever a figure
 * of the same trials and settings would come out differently (a new interval, estimator or rounding), so that
 * validate-bundle does not take a bundle of the older method for an edited one.
 */
export const STATISTICS_METHOD_VERSION = 1

/**
 * The run's statistics: the headline pass rate with its interval under both error policies, per evaluator the
 * task-level mean with t, clustered and bootstrap uncertainty, pass@k / pass^k, outcome counts, per-task and
 * per-category tables and usage percentiles. Deterministic: the bootstrap is seeded and tasks are sorted.
 */
export function statsScorer(options: SummaryOptions = {}): Scorer {
  const settings = resolveSummarySettings(options)
  return { summarize: (trials) => summarizeTrials(trials, settings) }
}

export function summarizeTrials(
  unordered: readonly SummarizedTrial[],
  settings: SummarySettings,
): RunSummary {
  const groups = groupByTask(unordered)
  // Sums of floating-point figures depend on their order: one order, whatever order the trials arrived in.
  const trials = groups.flatMap((g) => g.trials)
  const passed = trials.filter((t) => t.passed).length
  const overall = metricSummary(
    tallyTasks(groups, (t) => ({ score: t.passed ? 1 : 0, passed: t.passed }), settings),
    settings,
  )
  return {
    settings,
    statisticsVersion: STATISTICS_METHOD_VERSION,
    n: trials.length,
    passed,
    passRate: trials.length === 0 ? 0 : passed / trials.length,
    headline: headlineOf(groups, settings),
    overall,
    outcomes: outcomeCounts(trials),
    terminations: terminationCounts(trials),
    evaluators: evaluatorSummaries(groups, trials, settings),
    tasks: taskSummaries(groups),
    categories: categorySummaries(groups, settings),
    usage: usageSummary(trials),
  }
}

/**
 * A summary read from a bundle written before the headline had one figure per benchmark × target gets those
 * figures from its trials, so a re-rendered report of an old bundle does not pool different agents either.
 */
export function withGroupedHeadline(summary: RunSummary, trials: readonly SummarizedTrial[]): RunSummary {
  if (summary.headline.groups !== undefined) return summary
  return { ...summary, headline: headlineOf(groupByTask(trials), summary.settings) }
}

function evaluatorSummaries(
  groups: readonly TaskGroup[],
  trials: readonly SummarizedTrial[],
  settings: SummarySettings,
): EvaluatorSummary[] {
  const kinds = new Map<string, EvaluatorKind>()
  for (const trial of trials)
    for (const s of trial.scores) if (!kinds.has(s.evaluatorId)) kinds.set(s.evaluatorId, s.kind)
  return [...kinds.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([evaluatorId, kind]) => {
      const scores = trials.flatMap((t) => t.scores.filter((s) => s.evaluatorId === evaluatorId))
      const tallies = tallyTasks(
        groups,
        (t) => {
          const score = t.scores.find((s) => s.evaluatorId === evaluatorId)
          return score && { score: score.score, passed: score.passed }
        },
        settings,
      )
      return {
        evaluatorId,
        kind,
        n: scores.length,
        mean: scores.length === 0 ? 0 : scores.reduce((sum, s) => sum + s.score, 0) / scores.length,
        passRate: scores.length === 0 ? 0 : scores.filter((s) => s.passed).length / scores.length,
        errors: scores.filter((s) => s.error !== null).length,
        ...metricSummary(tallies, settings),
      }
    })
}
