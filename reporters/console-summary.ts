import type { RunSummary, TrialRecord } from '../src/core/index.ts'

/** One line per trial and a closing line: what a person reading CI logs needs, without opening the bundle. */
export function consoleSummary(
  trials: readonly TrialRecord[],
  summary: RunSummary,
  bundleDir: string,
): string {
  const rows = trials.map((t) => [
    `${t.taskId} #${t.trial}`,
    t.outcome,
    t.result?.terminatedBy ?? '-',
    t.scores.length ? (t.scores.reduce((a, s) => a + s.score, 0) / t.scores.length).toFixed(2) : '-',
  ])
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), 4))
  const lines = rows.map((r) => `  ${r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ')}`)
  const pct = (summary.passRate * 100).toFixed(1)
  lines.push(`agentevalops: ${summary.passed}/${summary.n} trials passed (${pct}%) · bundle ${bundleDir}`)
  return lines.join('\n')
}
