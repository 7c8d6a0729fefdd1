import type { RunSummary, ScoredTrial, TaskSummary } from '../src/core/index.ts'
import { terminalText } from '../src/reports/escape-terminal.ts'
import { fraction, percent, plural } from '../src/reports/format.ts'
import { headlineLineText, headlineModel } from '../src/reports/headline-model.ts'
import { sharedOut } from '../src/reports/shared-rows.ts'
import {
  brokenText,
  comparisonReason,
  hasRepeatedTrials,
  taskKeyOf,
  tasksWithCounts,
} from '../src/reports/summary-text.ts'

/**
 * More rows than this and only the ones that did not pass every trial are listed, and no more than this many of
 * them: a CI log is read from its end, and report.html has them all.
 */
const MAX_ROWS = 40
/** Names in one warning line. */
const MAX_NAMES = 10

/**
 * What a person reading CI logs needs without opening the bundle: one line per trial when every task ran once,
 * else one line per task; the headline pass rate with its interval; the tasks that never passed and the flaky
 * ones; the verdict against a baseline; and, last, passed/n and where the bundle is. Names come from the run (a
 * task id may hold a newline or an ANSI escape): every line is shown through terminalText, our own text unchanged.
 */
export function consoleSummary(
  trials: readonly ScoredTrial[],
  summary: RunSummary,
  bundleDir: string,
): string {
  const lines = hasRepeatedTrials(summary.tasks) ? taskRows(summary) : trialRows(trials)
  lines.push(...closing(summary).map(terminalText))
  // Over several targets a share of all trials is a pooled rate too: the count alone is still true.
  const share = headlineModel(summary).pooled === null ? '' : ` (${percent(summary.passRate)})`
  lines.push(
    `agentevalops: ${summary.passed}/${summary.n} trials passed${share} · bundle ${terminalText(bundleDir)}`,
  )
  return lines.join('\n')
}

function trialRows(trials: readonly ScoredTrial[]): string[] {
  // Equal task ids in two benchmarks are different tasks: name the benchmark when a run has several.
  const multiBenchmark = new Set(trials.map((t) => t.benchmark.id)).size > 1
  const notPassed = trials.length > MAX_ROWS ? trials.filter((t) => !t.passed) : trials
  const listed = sharedOut(notPassed, (t) => t.benchmark.id, MAX_ROWS)
  const rows = listed.map((t) => [
    terminalText(`${multiBenchmark ? `${t.benchmark.id}/` : ''}${t.taskId} #${t.trial}`),
    t.outcome,
    t.result?.terminatedBy ?? '-',
    t.scores.length ? (t.scores.reduce((a, s) => a + s.score, 0) / t.scores.length).toFixed(2) : '-',
  ])
  const lines = aligned(rows)
  const unlisted = notPassed.length - listed.length
  if (unlisted > 0) lines.push(`  … ${unlisted} more not passed (see the bundle's report.html or report.md)`)
  const hidden = trials.length - notPassed.length
  if (hidden > 0) lines.push(`  … ${plural(hidden, 'passed trial')} not listed`)
  return lines
}

function taskRows(summary: RunSummary): string[] {
  const multiBenchmark = new Set(summary.tasks.map((t) => t.benchmarkId)).size > 1
  const all = summary.tasks
  const notPassed = all.length > MAX_ROWS ? all.filter((t) => t.passed < t.trials) : all
  const listed = sharedOut(notPassed, (t) => t.benchmarkId, MAX_ROWS)
  const rows = listed.map((t) => [
    terminalText(multiBenchmark ? taskKeyOf(t) : t.taskId),
    fraction(t.passed, t.trials),
    status(t),
  ])
  const lines = aligned(rows)
  const unlisted = notPassed.length - listed.length
  if (unlisted > 0)
    lines.push(
      `  … ${unlisted} more that did not pass every trial (see the bundle's report.html or report.md)`,
    )
  const hidden = all.length - notPassed.length
  if (hidden > 0) lines.push(`  … ${plural(hidden, 'task')} passed every trial`)
  return lines
}

function status(task: TaskSummary): string {
  const infra = task.infraFailures > 0 ? ` (${task.infraFailures} infra)` : ''
  if (task.passed === 0) return `NEVER PASSED${infra}`
  return `${task.flaky ? 'flaky' : ''}${infra}`.trim()
}

/** Rows of cells, every column but the last padded to its widest cell, indented by two spaces. */
function aligned(rows: readonly string[][]): string[] {
  if (rows.length === 0) return []
  const columns = rows[0]!.length
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => r[i]!.length), 4))
  return rows.map((r) =>
    `  ${r.map((c, i) => (i < columns - 1 ? c.padEnd(widths[i]!) : c)).join('  ')}`.trimEnd(),
  )
}

function closing(summary: RunSummary): string[] {
  const { headline } = summary
  const model = headlineModel(summary)
  const lines: string[] = []
  if (model.grouped) {
    for (const row of model.rows)
      lines.push(`agentevalops: ${headlineLineText(row.label, row.primary, model.level)}`)
  }
  if (model.pooled && model.pooled.primary.value !== null) {
    lines.push(`agentevalops: ${headlineLineText(model.pooled.scope, model.pooled.primary, model.level)}`)
  }
  if (model.note !== null) lines.push(`agentevalops: ${model.note}`)
  if (headline.neverPassed.length > 0) {
    lines.push(
      `agentevalops: ⚠ ${plural(headline.neverPassed.length, 'task')} never passed: ` +
        tasksWithCounts(summary.tasks, headline.neverPassed, MAX_NAMES),
    )
  }
  if (headline.flaky.length > 0) {
    lines.push(
      `agentevalops: ${plural(headline.flaky.length, 'flaky task')}: ${tasksWithCounts(summary.tasks, headline.flaky, MAX_NAMES)}`,
    )
  }
  if (summary.comparison) {
    const { comparison } = summary
    // The verdict stays the last line before the closing one; the broken tasks it may rest on come just before.
    if (comparison.broken.length > 0)
      lines.push(
        `agentevalops: ${plural(comparison.broken.length, 'broken task')} (always passed in the baseline, never pass now): ${brokenText(comparison.broken, MAX_NAMES)}`,
      )
    lines.push(
      `agentevalops: vs baseline ${comparison.baseline.runId}: ${comparison.verdict} — ${comparisonReason(comparison)}`,
    )
  }
  return lines
}
