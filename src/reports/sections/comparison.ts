import type { BaselineComparison, BrokenTask, TaskRef } from '../../core/index.ts'
import { confidenceLabel, DASH, percent, plural, points, pointsInterval, pValue } from '../format.ts'
import { inertText } from '../escape-markdown.ts'
import { markdownTable, type Align } from '../markdown-table.ts'
import { brokenCounts, comparisonReason, metricName, testName, unpairedText } from '../summary-text.ts'

/** More regressed tasks than this and the list stops being read; the comparison in scores.json has them all. */
const MAX_REGRESSIONS = 30

/**
 * The run against its baseline, task by task: the verdict and why, what was paired, per metric the change with
 * its interval, the test behind the verdict, the smallest change the pairs could detect and the exact bound on the
 * share of tasks that regress; then the tasks that broke and those that got worse.
 */
export function comparisonSection(comparison: BaselineComparison | undefined): string | undefined {
  if (!comparison) return undefined
  const { settings } = comparison
  const level = confidenceLabel(1 - settings.alpha)
  const facts = [
    `- **Baseline run:** ${inertText(comparison.baseline.runId)}` +
      (comparison.baseline.benchmarks.length > 0
        ? ` (${inertText(comparison.baseline.benchmarks.join(', '))})`
        : ''),
    `- **Paired tasks:** ${comparison.pairedTasks}`,
    `- **Only in the baseline:** ${inertText(unpairedText(comparison.baselineOnly))}`,
    `- **Only in this run:** ${inertText(unpairedText(comparison.candidateOnly))}`,
    ...(comparison.changedDatasets.length > 0
      ? [
          `- **Dataset changed:** ${inertText(comparison.changedDatasets.join(', '))}; only the tasks both runs share are compared`,
        ]
      : []),
    `- **Settings:** α = ${settings.alpha}, largest acceptable drop ${percentPoints(settings.maxDrop)}, ` +
      `at least ${plural(settings.minPairs, 'paired task')}, seed ${settings.seed}` +
      (settings.failOnBroken ? '; any broken task fails (failOnBroken)' : '') +
      (settings.forced ? '; **forced**: the benchmarks or their datasets differ' : ''),
  ]
  const metrics = [comparison.overall, ...comparison.evaluators]
  const headers = [
    'Metric',
    'Pairs',
    'Baseline',
    'This run',
    'Δ',
    `${level} CI of Δ`,
    'Test',
    'p',
    'McNemar regressed / improved',
    'MDE',
    'Regressing ≤',
    'Verdict',
  ]
  const align = headers.map((h): Align => (['Metric', 'Test', 'Verdict'].includes(h) ? 'left' : 'right'))
  const rows = metrics.map((m) => [
    metricName(m),
    String(m.pairs),
    percent(m.baselineMean),
    percent(m.candidateMean),
    points(m.delta),
    pointsInterval(m.deltaCi),
    testName(m),
    pValue(m.pValue),
    m.mcnemar ? `${m.mcnemar.regressions} / ${m.mcnemar.improvements}` : DASH,
    m.minimumDetectableEffect === null ? DASH : percentPoints(m.minimumDetectableEffect),
    percent(m.regressionRateUpper),
    m.verdict,
  ])
  const lines = [
    '## Baseline comparison',
    '',
    `**Verdict: ${comparison.verdict}** — ${inertText(comparisonReason(comparison))}`,
    '',
    ...facts,
    '',
    markdownTable(headers, rows, align),
    '',
    'Δ: this run minus the baseline, per task then averaged. MDE: the smallest true change these pairs would ' +
      `detect at α = ${settings.alpha} with 80% power. Regressing ≤: the exact one-sided ${level} ` +
      '(Clopper–Pearson) upper bound on the share of paired tasks that got worse.',
    '',
    ...metrics.map((m) => `- ${inertText(metricName(m))}: **${m.verdict}** — ${inertText(m.reason)}`),
    '',
    brokenTasksText(comparison.broken, settings.failOnBroken),
    '',
    regressionsText(comparison.overall.regressions, comparison.overall.improvements.length),
  ]
  return lines.join('\n')
}

function percentPoints(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} pp`
}

function brokenTasksText(broken: readonly BrokenTask[], failOnBroken: boolean): string {
  const heading = '### Broken tasks'
  if (broken.length === 0)
    return `${heading}\n\nNo task that always passed in the baseline fails in every trial now.`
  const shown = broken
    .slice(0, MAX_REGRESSIONS)
    .map((b) => `- ${inertText(`${b.benchmarkId}/${b.taskId}`)}: ${brokenCounts(b)}`)
  const more = broken.length > MAX_REGRESSIONS ? [`- … and ${broken.length - MAX_REGRESSIONS} more`] : []
  return [
    heading,
    '',
    `${plural(broken.length, 'task')} always passed in the baseline and never pass now (passed trials, ` +
      `baseline → this run)` +
      (failOnBroken ? '; with failOnBroken they make the verdict NO_GO.' : '.'),
    '',
    ...shown,
    ...more,
  ].join('\n')
}

function regressionsText(regressions: readonly TaskRef[], improvements: number): string {
  const heading = '### Regressed tasks'
  const improved = `${plural(improvements, 'task')} improved.`
  if (regressions.length === 0) return `${heading}\n\nNo paired task got worse; ${improved}`
  const worst = [...regressions].sort((a, b) => b.baseline - b.candidate - (a.baseline - a.candidate))
  const shown = worst
    .slice(0, MAX_REGRESSIONS)
    .map(
      (r) =>
        `- ${inertText(`${r.benchmarkId}/${r.taskId}`)}: ${percent(r.baseline)} → ${percent(r.candidate)}`,
    )
  const more = worst.length > MAX_REGRESSIONS ? [`- … and ${worst.length - MAX_REGRESSIONS} more`] : []
  return [
    heading,
    '',
    `${plural(regressions.length, 'paired task')} got worse (pass rate, baseline → this run); ${improved}`,
    '',
    ...shown,
    ...more,
  ].join('\n')
}
