import type { BaselineComparison, MetricComparison } from '../core/index.ts'

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`)
const pp = (x: number | null) =>
  x === null ? '—' : `${x >= 0 ? '+' : '−'}${(Math.abs(x) * 100).toFixed(1)} pp`

/** The comparison as a terminal reads it: the verdict first, then one line per metric, then what regressed. */
export function formatComparison(
  comparison: BaselineComparison,
  where: { baselineDir: string; candidateDir: string },
): string {
  const lines = [
    `${comparison.verdict} — ${comparison.overall.reason}`,
    `baseline  ${comparison.baseline.runId} (${where.baselineDir})`,
    `candidate ${where.candidateDir}`,
    `paired tasks ${comparison.pairedTasks}` +
      (comparison.baselineOnly.length > 0 ? `, ${comparison.baselineOnly.length} only in the baseline` : '') +
      (comparison.candidateOnly.length > 0
        ? `, ${comparison.candidateOnly.length} only in the candidate`
        : ''),
    '',
    ...[comparison.overall, ...comparison.evaluators].map(metricLine),
  ]
  const regressed = comparison.overall.regressions
  if (regressed.length > 0) {
    lines.push('', `regressed (${regressed.length}):`)
    for (const r of regressed.slice(0, 50))
      lines.push(`  ${r.benchmarkId}/${r.taskId}  ${pct(r.baseline)} → ${pct(r.candidate)}`)
    if (regressed.length > 50) lines.push(`  … and ${regressed.length - 50} more (--json lists every one)`)
  }
  return lines.join('\n')
}

function metricLine(m: MetricComparison): string {
  const ci = m.deltaCi ? ` [${pp(m.deltaCi.lower)}, ${pp(m.deltaCi.upper)}]` : ''
  const mde =
    m.minimumDetectableEffect === null ? '' : ` · MDE ${pp(m.minimumDetectableEffect).replace('+', '')}`
  return (
    `${(m.evaluatorId ?? 'pass rate').padEnd(18)} ${m.verdict.padEnd(21)} ${pct(m.baselineMean)} → ${pct(m.candidateMean)}` +
    ` (${pp(m.delta)}${ci}) · ${m.test} p = ${m.pValue.toPrecision(3)}${mde}`
  )
}
