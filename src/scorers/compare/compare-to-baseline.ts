import type {
  BaselineComparison,
  BenchmarkInfo,
  BrokenTask,
  ComparisonVerdict,
  MetricComparison,
  ScoredTrial,
} from '../../core/index.ts'
import { reduceTrials } from '../summary/reduce.ts'
import { compareText, groupByTask, type TaskGroup } from '../summary/task-groups.ts'
import { checkComparable } from './comparable.ts'
import { compareMetric, type PairedValue } from './metric-comparison.ts'
import { resolveCompareSettings, type CompareOptions } from './options.ts'

/** A run as a comparison sees it: its id, benchmarks and trials. */
export interface ComparedRun {
  runId: string
  benchmarks: readonly BenchmarkInfo[]
  trials: readonly ScoredTrial[]
}

type Pick = (trial: ScoredTrial) => boolean | undefined

/**
 * Pairs the candidate's tasks with the baseline's by benchmark and task id and compares the overall pass rate and
 * each evaluator's pass rate the two runs share. The overall verdict is NO_GO when the pass rate or any evaluator
 * regressed, or when `failOnBroken` is set and some task broke; otherwise the pass rate's verdict.
 */
export function compareToBaseline(
  baseline: ComparedRun,
  candidate: ComparedRun,
  options: CompareOptions = {},
): BaselineComparison {
  const settings = resolveCompareSettings(options)
  const { changedDatasets } = checkComparable(baseline, candidate, settings.forced)
  const base = new Map(groupByTask(baseline.trials).map((g) => [g.key, g]))
  const cand = new Map(groupByTask(candidate.trials).map((g) => [g.key, g]))
  const paired = [...cand.values()].filter((g) => base.has(g.key)).map((g) => [base.get(g.key)!, g] as const)

  const compare = (evaluatorId: string | null, pick: Pick): MetricComparison =>
    compareMetric(evaluatorId, pairValues(paired, pick), settings)
  const overall = compare(null, (t) => t.passed)
  const broken = brokenTasks(paired)
  const evaluators = sharedEvaluators(baseline.trials, candidate.trials).map((id) =>
    compare(id, (t) => t.scores.find((s) => s.evaluatorId === id)?.passed),
  )
  return {
    baseline: { runId: baseline.runId, benchmarks: baseline.benchmarks.map((b) => b.id) },
    settings,
    pairedTasks: paired.length,
    baselineOnly: [...base.keys()].filter((k) => !cand.has(k)),
    candidateOnly: [...cand.keys()].filter((k) => !base.has(k)),
    changedDatasets,
    broken,
    overall,
    evaluators,
    verdict: overallVerdict(overall, evaluators, settings.failOnBroken && broken.length > 0),
  }
}

/**
 * Tasks whose every baseline trial passed and none of whose trials passes now: in a small suite two of them are
 * a plain regression that no test at α can show, so they are listed whatever the p-value.
 */
function brokenTasks(
  paired: readonly (readonly [TaskGroup<ScoredTrial>, TaskGroup<ScoredTrial>])[],
): BrokenTask[] {
  return paired
    .filter(([b, c]) => b.trials.every((t) => t.passed) && c.trials.every((t) => !t.passed))
    .map(([b, c]) => ({
      benchmarkId: c.benchmarkId,
      taskId: c.taskId,
      baselineTrials: b.trials.length,
      candidateTrials: c.trials.length,
    }))
}

function pairValues(
  paired: readonly (readonly [TaskGroup<ScoredTrial>, TaskGroup<ScoredTrial>])[],
  pick: Pick,
): PairedValue[] {
  const values: PairedValue[] = []
  for (const [b, c] of paired) {
    const bs = passes(b, pick)
    const cs = passes(c, pick)
    if (bs.length === 0 || cs.length === 0) continue
    values.push({
      benchmarkId: c.benchmarkId,
      taskId: c.taskId,
      baseline: reduceTrials(bs, 'mean'),
      candidate: reduceTrials(cs, 'mean'),
      binary: bs.length === 1 && cs.length === 1,
    })
  }
  return values
}

function passes(group: TaskGroup<ScoredTrial>, pick: Pick): number[] {
  return group.trials.map(pick).flatMap((p) => (p === undefined ? [] : [p ? 1 : 0]))
}

function sharedEvaluators(a: readonly ScoredTrial[], b: readonly ScoredTrial[]): string[] {
  const ids = (trials: readonly ScoredTrial[]) =>
    new Set(trials.flatMap((t) => t.scores.map((s) => s.evaluatorId)))
  const inB = ids(b)
  return [...ids(a)].filter((id) => inB.has(id)).sort(compareText)
}

function overallVerdict(
  overall: MetricComparison,
  evaluators: readonly MetricComparison[],
  failsOnBroken: boolean,
): ComparisonVerdict {
  if (failsOnBroken || overall.verdict === 'NO_GO' || evaluators.some((e) => e.verdict === 'NO_GO'))
    return 'NO_GO'
  return overall.verdict
}
