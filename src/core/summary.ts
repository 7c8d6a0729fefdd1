import * as z from 'zod'
import { EvaluatorKind, RunnerInfo, TerminatedBy, TrialOutcome } from './schemas.ts'

/*
 * The statistics of a run (scores.json `summary`). The unit of analysis is the task: a task's trials are reduced
 * to one value per task before any interval is computed, because trials of one task are not independent of each
 * other. Undefined figures (an interval of one value, pass@k with fewer than k trials) are null, never NaN.
 */

const count = z.number().int().nonnegative()
const unit = z.number().min(0).max(1)
const nonNegative = z.number().finite().nonnegative()

export const Interval = z.object({ lower: z.number(), upper: z.number() })
export type Interval = z.infer<typeof Interval>

/** How trials of one task become the task's value. */
export const TrialReducer = z.enum(['mean', 'median', 'max', 'min'])
export type TrialReducer = z.infer<typeof TrialReducer>

/** What an infra failure (or a trial that was never evaluated) counts as in the headline. */
export const ErrorPolicy = z.enum(['count-as-failure', 'exclude'])
export type ErrorPolicy = z.infer<typeof ErrorPolicy>

/** The settings the statistics were computed with: scores.json says how its numbers were made. */
export const SummarySettings = z.object({
  confidence: z.number().gt(0).lt(1),
  reducer: TrialReducer,
  errorPolicy: ErrorPolicy,
  /** Task metadata key whose values cluster tasks for the clustered standard error; null = none. */
  clusterBy: z.string().min(1).nullable(),
  bootstrap: z.object({ resamples: z.number().int().positive(), seed: z.number().int() }),
})
export type SummarySettings = z.infer<typeof SummarySettings>

/** A mean over tasks, with its uncertainty. */
export const Estimate = z.object({
  /** Tasks the estimate rests on. */
  tasks: count,
  mean: z.number().nullable(),
  /** Standard error, ddof = 1. */
  se: z.number().nullable(),
  /**
   * Wilson score interval when every task's value is 0 or 1; otherwise the Student t interval with tasks − 1
   * degrees of freedom, clipped to [0, 1] (scores and rates cannot leave it).
   */
  ci: Interval.nullable(),
  /** Cluster-robust standard error over `settings.clusterBy`; null when there are fewer than two clusters. */
  clusteredSe: z.number().nullable(),
  clusters: count,
  /** Seeded percentile bootstrap over tasks (B and seed in `settings.bootstrap`). */
  bootstrapCi: Interval.nullable(),
})
export type Estimate = z.infer<typeof Estimate>

/** Trial-level pass counts with a Wilson score interval (it treats trials as independent). */
export const PassCount = z.object({
  trials: count,
  passed: count,
  rate: unit.nullable(),
  wilson: Interval.nullable(),
})
export type PassCount = z.infer<typeof PassCount>

/** pass@k (some of k trials pass) and pass^k (all k pass), unbiased estimators averaged over tasks. */
export const PassAtK = z.object({
  k: z.number().int().positive(),
  /** null when some task has fewer than k trials: the estimator is undefined there. */
  passAtK: unit.nullable(),
  passHatK: unit.nullable(),
  /** Tasks with at least k trials. */
  tasks: count,
  /** Tasks with fewer than k trials. */
  undefinedTasks: count,
})
export type PassAtK = z.infer<typeof PassAtK>

export const MetricSummary = z.object({
  /** Task-level estimate of the mean score (for `overall`: of the pass rate). */
  score: Estimate,
  /** Task-level estimate of the pass rate. */
  pass: Estimate,
  passCount: PassCount,
  passAtK: z.array(PassAtK),
})
export type MetricSummary = z.infer<typeof MetricSummary>

export const EvaluatorSummary = MetricSummary.extend({
  evaluatorId: z.string(),
  kind: EvaluatorKind,
  /** Trials this evaluator scored. */
  n: count,
  /** Mean score over trials. */
  mean: z.number(),
  /** Pass rate over trials. */
  passRate: z.number(),
  /** Trials where the evaluator could not judge (its `error` is set). */
  errors: count,
})
export type EvaluatorSummary = z.infer<typeof EvaluatorSummary>

/** The headline pass rate under one error policy. */
export const HeadlineFigure = z.object({
  /** Mean over tasks of each task's pass rate; null when no task is left. */
  rate: unit.nullable(),
  ci: Interval.nullable(),
  /** `wilson` when every task has one trial (pass/fail per task), else `t` over per-task rates. */
  method: z.enum(['wilson', 't']),
  tasks: count,
  trials: count,
})
export type HeadlineFigure = z.infer<typeof HeadlineFigure>

/**
 * The headline of one benchmark run by one target (runner): the population a pass rate describes. A run that mixes
 * benchmarks or targets has one of these per pair; a pooled figure over different agents describes none of them.
 */
export const HeadlineGroup = z.object({
  benchmarkId: z.string(),
  /** The runner of these trials, as metadata.json `targets` lists it. */
  target: RunnerInfo,
  /** The figure under `settings.errorPolicy`. */
  primary: HeadlineFigure,
  infraAsFailure: HeadlineFigure,
  infraExcluded: HeadlineFigure,
  /** Trials that passed, of `infraAsFailure.trials`. */
  passed: count,
  /** Tasks of this group that never passed, and that passed only sometimes. */
  neverPassed: count,
  flaky: count,
})
export type HeadlineGroup = z.infer<typeof HeadlineGroup>

export const Headline = z.object({
  /**
   * The figure under `settings.errorPolicy`, pooled over every task of the run. It means something only when
   * `pooled` is true (one target); over several targets it mixes different agents and is not shown.
   */
  primary: HeadlineFigure,
  /** Infra failures and unevaluated trials counted as failures. */
  infraAsFailure: HeadlineFigure,
  /** Infra failures and unevaluated trials left out. */
  infraExcluded: HeadlineFigure,
  /** Tasks that never passed in any trial: the ones an average hides. */
  neverPassed: z.array(z.string()),
  /** Tasks that passed in some trials and failed in others. */
  flaky: z.array(z.string()),
  /**
   * One headline per benchmark × target, sorted by benchmark then target name. Absent in scores.json written before
   * agentevalops grouped its headline (readers then have the pooled figure only).
   */
  groups: z.array(HeadlineGroup).optional(),
  /** Whether the pooled figure (`primary`) describes one target: true when the run has one target. */
  pooled: z.boolean().optional(),
})
export type Headline = z.infer<typeof Headline>

export const TaskSummary = z.object({
  benchmarkId: z.string(),
  taskId: z.string(),
  category: z.string().nullable(),
  trials: count,
  passed: count,
  passRate: unit,
  /** (2p̂ − 1)²: 1 when every trial agrees, 0 at a coin flip. */
  consistency: unit,
  /** 0 < passed < trials. */
  flaky: z.boolean(),
  infraFailures: count,
  meanScore: unit.nullable(),
  costUsd: nonNegative,
})
export type TaskSummary = z.infer<typeof TaskSummary>

export const CategorySummary = z.object({
  category: z.string(),
  tasks: count,
  trials: count,
  passed: count,
  pass: Estimate,
})
export type CategorySummary = z.infer<typeof CategorySummary>

export const Distribution = z.object({
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  max: z.number().nullable(),
})
export type Distribution = z.infer<typeof Distribution>

export const UsageSummary = z.object({
  tokens: count,
  costUsd: nonNegative,
  wallSeconds: nonNegative,
  turns: count,
  /** Per-trial percentiles (linear interpolation, NumPy's default). */
  perTrial: z.object({ costUsd: Distribution, tokens: Distribution, wallSeconds: Distribution }),
  /** Total cost divided by the number of passed trials; null when none passed. */
  costPerSolved: nonNegative.nullable(),
})
export type UsageSummary = z.infer<typeof UsageSummary>

export const ComparisonVerdict = z.enum(['GO', 'NO_GO', 'INCONCLUSIVE', 'INSUFFICIENT_EVIDENCE'])
export type ComparisonVerdict = z.infer<typeof ComparisonVerdict>

export const TaskRef = z.object({
  benchmarkId: z.string(),
  taskId: z.string(),
  baseline: z.number(),
  candidate: z.number(),
})
export type TaskRef = z.infer<typeof TaskRef>

/** One metric (overall pass, or an evaluator's pass) compared task by task. */
export const MetricComparison = z.object({
  /** null for the overall pass rate. */
  evaluatorId: z.string().nullable(),
  pairs: count,
  baselineMean: z.number().nullable(),
  candidateMean: z.number().nullable(),
  /** candidate − baseline. */
  delta: z.number().nullable(),
  deltaCi: Interval.nullable(),
  /** Exact McNemar on tasks that passed on one side only; null when some task has several trials. */
  mcnemar: z.object({ regressions: count, improvements: count, pValue: z.number() }).nullable(),
  signTestP: z.number(),
  permutation: z.object({ pValue: z.number(), exact: z.boolean() }),
  /** The test the verdict rests on. */
  test: z.enum(['mcnemar', 'permutation']),
  pValue: z.number(),
  /** Smallest true change this many pairs would detect (α, 80 % power); null with fewer than 2 pairs. */
  minimumDetectableEffect: z.number().nullable(),
  /**
   * Exact one-sided Clopper–Pearson upper bound, at 1 − α, of the share of paired tasks that regress (got worse):
   * what the pairs cannot rule out however few regressions they show. null with no pairs (and in bundles written
   * before it existed).
   */
  regressionRateUpper: z.number().min(0).max(1).nullable().default(null),
  regressions: z.array(TaskRef),
  improvements: z.array(TaskRef),
  verdict: ComparisonVerdict,
  reason: z.string(),
})
export type MetricComparison = z.infer<typeof MetricComparison>

export const ComparisonSettings = z.object({
  alpha: z.number().gt(0).lt(1),
  /** The largest drop of a mean (0..1) still acceptable. */
  maxDrop: z.number().min(0).max(1),
  /** Fewer paired tasks than this: INSUFFICIENT_EVIDENCE. */
  minPairs: z.number().int().positive(),
  /** Compared although benchmarks or dataset checksums differ. */
  forced: z.boolean(),
  seed: z.number().int(),
  /** Any broken task (always passed in the baseline, never passes now) makes the verdict NO_GO. */
  failOnBroken: z.boolean().default(false),
})
export type ComparisonSettings = z.infer<typeof ComparisonSettings>

/** A paired task whose every baseline trial passed and none of whose trials passes now. */
export const BrokenTask = z.object({
  benchmarkId: z.string(),
  taskId: z.string(),
  baselineTrials: count,
  candidateTrials: count,
})
export type BrokenTask = z.infer<typeof BrokenTask>

export const BaselineComparison = z.object({
  baseline: z.object({ runId: z.string(), benchmarks: z.array(z.string()) }),
  settings: ComparisonSettings,
  pairedTasks: count,
  baselineOnly: z.array(z.string()),
  candidateOnly: z.array(z.string()),
  /** Benchmarks whose dataset checksum differs from the baseline's: only the tasks both runs share are compared. */
  changedDatasets: z.array(z.string()).default([]),
  /** Tasks that always passed in the baseline and never pass now, whatever the tests say. */
  broken: z.array(BrokenTask).default([]),
  overall: MetricComparison,
  evaluators: z.array(MetricComparison),
  verdict: ComparisonVerdict,
})
export type BaselineComparison = z.infer<typeof BaselineComparison>

export const RunSummary = z.object({
  settings: SummarySettings,
  /**
   * The version of the statistics method that computed this summary (the scorer's STATISTICS_METHOD_VERSION): a
   * summary is recomputed and compared only by a scorer of the same method. Absent in bundles written before
   * agentevalops stamped it.
   */
  statisticsVersion: z.number().int().positive().optional(),
  /** Trials. */
  n: count,
  passed: count,
  /** Pass rate over trials. */
  passRate: z.number(),
  headline: Headline,
  overall: MetricSummary,
  outcomes: z.partialRecord(TrialOutcome, count),
  /** How the agent's runs ended (`none`: no agent result, e.g. prepare failed). */
  terminations: z.partialRecord(z.union([TerminatedBy, z.literal('none')]), count),
  evaluators: z.array(EvaluatorSummary),
  tasks: z.array(TaskSummary),
  categories: z.array(CategorySummary),
  usage: UsageSummary,
  comparison: BaselineComparison.optional(),
})
export type RunSummary = z.infer<typeof RunSummary>
