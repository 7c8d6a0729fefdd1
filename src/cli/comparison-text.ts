import type { BaselineComparison, MetricComparison } from '../core/index.ts'
import { terminalText } from '../reports/escape-terminal.ts'
import { brokenCounts, comparisonReason } from '../reports/summary-text.ts'

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`)
const pp = (x: number | null) =>
  x === null ? '—' : `${x >= 0 ? '+' : '−'}${(Math.abs(x) * 100).toFixed(1)} pp`

/** More tasks than this in a list and the terminal shows the first ones; --json lists every one. */
const MAX_LISTED = 50

/**
 * The comparison as a terminal reads it: the verdict first, then one line per metric, then the broken tasks and
 * what regressed. Run ids and task names come from bundles: each line is shown through terminalText.
 */
export function formatComparison(
  comparison: BaselineComparison,
  where: { baselineDir: string; candidateDir: string },
): string {
  const lines = [
    `${comparison.verdict} — ${comparisonReason(comparison)}`,
    `baseline  ${comparison.baseline.runId} (${where.baselineDir})`,
    `candidate ${where.candidateDir}`,
    `paired tasks ${comparison.pairedTasks}` +
      (comparison.baselineOnly.length > 0 ? `, ${comparison.baselineOnly.length} only in the baseline` : '') +
      (comparison.candidateOnly.length > 0
        ? `, ${comparison.candidateOnly.length} only in the candidate`
        : ''),
    ...comparison.changedDatasets.map(
      (id) => `dataset of ${id} changed since the baseline: only the tasks both runs share are compared`,
    ),
    '',
    ...[comparison.overall, ...comparison.evaluators].map(metricLine),
  ]
  const { broken } = comparison
  if (broken.length > 0) {
    const rule = comparison.settings.failOnBroken
      ? 'they fail the comparison (--fail-on-broken)'
      : '--fail-on-broken fails on them'
    lines.push('', `broken (${broken.length}) — always passed in the baseline, never pass now; ${rule}:`)
    for (const b of broken.slice(0, MAX_LISTED))
      lines.push(`  ${b.benchmarkId}/${b.taskId}  ${brokenCounts(b)}`)
    lines.push(...more(broken.length))
  }
  const regressed = comparison.overall.regressions
  if (regressed.length > 0) {
    lines.push('', `regressed (${regressed.length}):`)
    for (const r of regressed.slice(0, MAX_LISTED))
      lines.push(`  ${r.benchmarkId}/${r.taskId}  ${pct(r.baseline)} → ${pct(r.candidate)}`)
    lines.push(...more(regressed.length))
  }
  return lines.map(terminalText).join('\n')
}

function more(count: number): string[] {
  return count > MAX_LISTED ? [`  … and ${count - MAX_LISTED} more (--json lists every one)`] : []
}

function metricLine(m: MetricComparison): string {
  const ci = m.deltaCi ? ` [${pp(m.deltaCi.lower)}, ${pp(m.deltaCi.upper)}]` : ''
  const mde =
    m.minimumDetectableEffect === null ? '' : ` · MDE ${pp(m.minimumDetectableEffect).replace('+', '')}`
  const bound = m.regressionRateUpper === null ? '' : ` · regressing ≤ ${pct(m.regressionRateUpper)}`
  return (
    `${(m.evaluatorId ?? 'pass rate').padEnd(18)} ${m.verdict.padEnd(21)} ${pct(m.baselineMean)} → ${pct(m.candidateMean)}` +
    ` (${pp(m.delta)}${ci}) · ${m.test} p = ${m.pValue.toPrecision(3)}${mde}${bound}`
  )
}
