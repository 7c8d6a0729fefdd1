import type {
  BaselineComparison,
  BrokenTask,
  HeadlineFigure,
  MetricComparison,
  TaskSummary,
} from '../core/index.ts'
import { capped, fraction, intervalMethod, percentInterval, plural } from './format.ts'

/*
 * Phrases the markdown report and the console summary share, so both name a task and a comparison alike.
 */

/** `benchmark/task`, the key the summary's headline lists tasks by. */
export function taskKeyOf(task: Pick<TaskSummary, 'benchmarkId' | 'taskId'>): string {
  return `${task.benchmarkId}/${task.taskId}`
}

/** Whether some task ran more than once: only then do per-task rates, flakiness and pass@k mean anything. */
export function hasRepeatedTrials(tasks: Iterable<TaskSummary>): boolean {
  for (const t of tasks) if (t.trials > 1) return true
  return false
}

/** `toy/broken (0/10)` for each key, capped at `max` names. */
export function tasksWithCounts(tasks: Iterable<TaskSummary>, keys: readonly string[], max: number): string {
  const byKey = taskLookup(tasks, keys.slice(0, max))
  return capped(
    keys.map((key) => {
      const task = byKey.get(key)?.task
      return task ? `${key} (${fraction(task.passed, task.trials)})` : key
    }),
    max,
  )
}

/**
 * The tasks a report names by key (the headline's, the comparison's, the flaky table's): each with its index in the
 * task table and its row, in the table's order. Only these: the table itself may be a long run's, read from a file.
 */
export type TaskLookup = ReadonlyMap<string, { index: number; task: TaskSummary }>

export function taskLookup(tasks: Iterable<TaskSummary>, keys: Iterable<string>): TaskLookup {
  const wanted = new Set(keys)
  const found = new Map<string, { index: number; task: TaskSummary }>()
  if (wanted.size === 0) return found
  let index = 0
  for (const task of tasks) {
    const key = taskKeyOf(task)
    if (wanted.has(key) && !found.has(key)) found.set(key, { index, task })
    index++
  }
  return found
}

/**
 * Why the comparison came out as it did: the overall pass rate's reason, or, when an evaluator's regression made
 * the verdict NO_GO, that evaluator's, or, when broken tasks did (failOnBroken), those tasks.
 */
export function comparisonReason(comparison: BaselineComparison): string {
  if (comparison.overall.verdict === comparison.verdict) return comparison.overall.reason
  const deciding = comparison.evaluators.filter((e) => e.verdict === comparison.verdict)
  if (deciding.length > 0)
    return deciding.map((e) => `evaluator ${e.evaluatorId ?? '(overall)'}: ${e.reason}`).join('; ')
  if (comparison.verdict === 'NO_GO' && comparison.settings.failOnBroken && comparison.broken.length > 0)
    return (
      `${plural(comparison.broken.length, 'broken task')} (always passed in the baseline, never pass now: ` +
      `${brokenText(comparison.broken, MAX_BROKEN_NAMES)}) and failOnBroken is set; ` +
      `the pass rate alone says ${comparison.overall.verdict}: ${comparison.overall.reason}`
    )
  return comparison.overall.reason
}

const MAX_BROKEN_NAMES = 10

/** `toy/a (3/3 → 0/3)` for each broken task, capped at `max` names. */
export function brokenText(broken: readonly BrokenTask[], max: number): string {
  return capped(
    broken.map((b) => `${b.benchmarkId}/${b.taskId} (${brokenCounts(b)})`),
    max,
  )
}

/** `3/3 → 0/3`: every baseline trial passed, no candidate trial does. */
export function brokenCounts(b: BrokenTask): string {
  return `${b.baselineTrials}/${b.baselineTrials} → 0/${b.candidateTrials}`
}

/** The headline figure's interval, its method, and what it was computed over. */
export function figureDetails(figure: HeadlineFigure, level: string): string {
  const ci = figure.ci
    ? `${level} CI ${percentInterval(figure.ci)}, ${intervalMethod(figure.method)}`
    : `${level} CI —`
  return `${ci}; ${plural(figure.tasks, 'task')}, ${plural(figure.trials, 'trial')}`
}

/** What a compared metric measures. */
export function metricName(m: MetricComparison): string {
  return m.evaluatorId === null ? 'pass rate (overall)' : `${m.evaluatorId} pass rate`
}

/** The test a comparison's verdict rests on. */
export function testName(m: MetricComparison): string {
  if (m.test === 'mcnemar') return 'McNemar exact'
  return m.permutation.exact ? 'paired permutation (exact)' : 'paired permutation (Monte Carlo)'
}

const MAX_UNPAIRED_NAMES = 10

/** Tasks found on one side of a comparison only: how many, and the first of them. */
export function unpairedText(keys: readonly string[]): string {
  return keys.length === 0 ? '0' : `${keys.length} (${capped(keys, MAX_UNPAIRED_NAMES)})`
}
