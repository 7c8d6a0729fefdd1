/*
 * What `agentevalops view` serves and its app (ui/view/) reads: plain JSON types, no runtime code, so the browser
 * app imports them as types without pulling in the server. Figures are raw numbers (0..1 rates, USD); the app
 * formats them. Every route the app links to is here, so a CI log or PR comment can point at a run, task or trial.
 */

/** Routes of the view server. `:run` is a run's folder name under the runs folder, URL-encoded. */
export const VIEW_ROUTES = {
  /** The app: runs list (also /trends, /runs/:run, /compare?… — the app routes by path; the server serves it). */
  app: '/',
  runs: '/api/runs',
  run: '/api/runs/:run',
  trends: '/api/trends',
  /** ?benchmark=&target= */
  history: '/api/history',
  /** ?baseline=:run&candidate=:run */
  compare: '/api/compare',
  /** Server-sent events (LiveEvent), one `data:` line each. */
  events: '/api/events',
  /** One run's full report, as report.html shows it, made by the server from the bundle's data (never the bundle's own HTML). */
  report: '/runs/:run/report',
} as const

/** The app's page for a run, a task of it, a trial of that task: the links a CI log or a PR comment carries. */
export function runUrl(base: string, run: string): string {
  return `${trimSlash(base)}/runs/${encodeURIComponent(run)}`
}
export function taskUrl(base: string, run: string, taskKey: string): string {
  return `${runUrl(base, run)}/tasks/${encodeURIComponent(taskKey)}`
}
export function trialUrl(base: string, run: string, taskKey: string, trial: number): string {
  return `${taskUrl(base, run, taskKey)}/trials/${trial}`
}
function trimSlash(base: string): string {
  return base.endsWith('/') ? base.slice(0, -1) : base
}

export interface Interval {
  lower: number
  upper: number
}

export type Verdict = 'GO' | 'NO_GO' | 'INCONCLUSIVE' | 'INSUFFICIENT_EVIDENCE'

/** A benchmark × target pair's headline in one run (scores.json headline.groups, or the pooled figure). */
export interface GroupFigure {
  benchmark: string
  /** The runner's display name (metadata targets[].name, or id). */
  target: string
  /** Under the run's error policy; null when no task is left. */
  rate: number | null
  ci: Interval | null
  method: 'wilson' | 't'
  tasks: number
  trials: number
  passed: number
}

/** One row of the runs list: what a bundle's small files say (metadata.json, scores.json's summary, manifest.json). */
export interface RunEntry {
  /**
   * The bundle's folder name under the runs folder: the `:run` of every route. A live run's is the run id its bundle
   * will be sealed under, so its links stay good when it ends.
   */
  run: string
  runId: string
  /**
   * valid: sealed and its small files check out; invalid: shown with its problems, never rendered; live: a run in
   * progress (its staging folder), counts so far.
   */
  state: 'valid' | 'invalid' | 'live'
  /** Why an invalid bundle is invalid: one line per finding, as validate-bundle prints them. */
  problems: string[]
  /** metadata.status (completed, interrupted, partial-shard, merged, monitor…), or `running` when live. */
  status: string
  startedAt: string | null
  finishedAt: string | null
  benchmarks: string[]
  targets: string[]
  gitSha: string | null
  gitDirty: boolean | null
  labels: Record<string, string>
  /** Trials (so far, when live) and how many passed. */
  trials: number
  passed: number
  /** The pooled headline when it describes one target (headline.pooled), else null: see `groups`. */
  headline: GroupFigure | null
  groups: GroupFigure[]
  costUsd: number | null
  /** The run's comparison with its baseline, when it had one. */
  verdict: { baseline: string; verdict: Verdict } | null
}

export interface RunsResponse {
  runsDir: string
  runs: RunEntry[]
}

/** One run on a trend: its group figure, and its verdict against its baseline when it had one. */
export interface TrendPoint {
  run: string
  runId: string
  startedAt: string
  rate: number | null
  ci: Interval | null
  tasks: number
  trials: number
  verdict: Verdict | null
  baseline: string | null
  /** How the interval was computed (GroupFigure.method). */
  method?: 'wilson' | 't'
  /** Trials that passed. */
  passed?: number
  gitSha?: string | null
}

/**
 * A benchmark × target over runs, oldest first: its valid, whole runs (complete or monitor; not interrupted runs or
 * shards, whose figures cover part of a run). docs/view.md says which runs and why.
 */
export interface TrendSeries {
  benchmark: string
  target: string
  points: TrendPoint[]
}

export interface TrendsResponse {
  series: TrendSeries[]
}

/** A task in one run: trials and passes (a cell of the history grid); null when the run did not have the task. */
export interface TaskCell {
  trials: number
  passed: number
}

/**
 * How a task behaved across the runs of a series. A run's outcome for the task is pass (every trial passed), fail
 * (none did) or split (some did); a change of outcome is a flip between consecutive runs that had the task. The
 * first kind that holds, in this order:
 * - never-passed: no trial passed in any run that had the task;
 * - flaky: some run was split, or the outcome changed at least twice (passed in some runs, failed in others, back
 *   and forth): the cells are the evidence;
 * - flipped: it changed once, and the change is the last run's (the last run has the task and differs from the run
 *   before that had it): `direction` says which way;
 * - stable: the same outcome in every run, or one change in an earlier run that has held since (flips says which).
 */
export type TaskHistoryKind = 'never-passed' | 'flaky' | 'flipped' | 'stable'

export interface TaskHistoryRow {
  /** benchmark/task, as the report's task keys. */
  taskKey: string
  taskId: string
  kind: TaskHistoryKind
  /** Aligned with TaskHistoryResponse.runs. */
  cells: (TaskCell | null)[]
  /** Changes of outcome (all passed / some / none) between consecutive runs that had the task. */
  flips: number
  /** For flipped: the direction of the last change. */
  direction: 'improved' | 'regressed' | null
}

export interface TaskHistoryResponse {
  benchmark: string
  target: string
  /** The series' runs (RunEntry.run), oldest first. */
  runs: string[]
  /** never-passed, flaky, flipped first; then stable; by task key within a kind. */
  tasks: TaskHistoryRow[]
  /**
   * Runs of the series left out of `runs`: their benchmark ran with several targets, and scores.json counts a task's
   * trials over all of them, so no cell of theirs would be this target's alone. Oldest first.
   */
  pooledRuns?: string[]
}

/** A task of a compared pair, with its pass rate on each side. */
export interface ComparedTask {
  taskKey: string
  baseline: number
  candidate: number
}

/** `agentevalops compare`'s paired comparison of two runs, for the app. */
export interface CompareResponse {
  baseline: string
  candidate: string
  verdict: Verdict
  reason: string
  pairedTasks: number
  /** candidate − baseline of the overall pass rate, with its interval and the test's p-value. */
  delta: number | null
  deltaCi: Interval | null
  pValue: number
  test: 'mcnemar' | 'permutation'
  /**
   * Tasks that always passed in the baseline and never pass now (by task key); then the other tasks that regressed
   * (largest drop first: a broken task is listed once, here), then those that improved (largest gain first).
   */
  broken: ComparedTask[]
  regressed: ComparedTask[]
  improved: ComparedTask[]
  baselineOnly: string[]
  candidateOnly: string[]
  /** Benchmarks whose dataset changed between the runs: only the tasks both share were compared. */
  changedDatasets?: string[]
}

/** What the events stream says, as runs change under the runs folder. */
export type LiveEvent =
  /** A run began (a staging folder appeared; a watch rerun is a new one). */
  | { type: 'run-started'; run: RunEntry }
  /** Trials finished: the run's counts so far. */
  | { type: 'run-progress'; run: RunEntry }
  /** The run's bundle was sealed (or its staging vanished): its entry as the runs list now has it. */
  | {
      type: 'run-ended'
      run: RunEntry
      /**
       * Why, when the live watcher says it: `sealed` (its bundle is in the runs folder), `removed` (the staging folder
       * went without a bundle: no trial finished, or it was deleted), `died` (its process is gone and the staging
       * folder stays, for `agentevalops recover`).
       */
      ending?: 'sealed' | 'removed' | 'died'
    }
  /** A bundle appeared or went away outside a live run (copied in, pruned): reload the runs list. */
  | { type: 'runs-changed' }
