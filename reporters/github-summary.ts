import { appendFile } from 'node:fs/promises'
import {
  errorMessage,
  type BaselineComparison,
  type ComparisonVerdict,
  type RunMetadata,
  type RunSummary,
  type ScoredTrial,
  type TaskRef,
} from '../src/core/index.ts'
import {
  capped,
  confidenceLabel,
  fraction,
  percent,
  percentInterval,
  plural,
  usd,
} from '../src/reports/format.ts'
import { inertText, markdownTable } from '../src/reports/markdown-table.ts'
import { brokenText, comparisonReason, taskKeyOf, tasksWithCounts } from '../src/reports/summary-text.ts'

/** More names than this and a job summary stops being read; report.md and scores.json have them all. */
const MAX_REGRESSIONS = 30
const MAX_NEVER_PASSED = 20

export interface GithubSummaryInput {
  metadata: RunMetadata
  summary: RunSummary
  trials: readonly ScoredTrial[]
  /** As the console summary shows it (relative to the working directory, the workspace in Actions). */
  bundleDir: string
}

const VERDICT_MARK: Record<ComparisonVerdict, string> = {
  GO: '✅',
  NO_GO: '❌',
  INCONCLUSIVE: '⚠️',
  INSUFFICIENT_EVIDENCE: '⚠️',
}

/**
 * The run as a GitHub Actions job summary: the headline pass rate with its interval, pass rates per benchmark, the
 * verdict against the baseline with the tasks that got worse, the tasks that never passed, and where the bundle
 * is. Every text a run provides is made inert, as in report.md: the summary is rendered on github.com.
 */
export function githubStepSummary({ metadata, summary, trials, bundleDir }: GithubSummaryInput): string {
  const sections = [
    header(metadata, summary),
    benchmarksTable(trials),
    summary.comparison && comparisonText(summary.comparison),
    neverPassedText(summary),
    `Bundle: ${inertText(bundleDir)}`,
  ].filter((s): s is string => typeof s === 'string')
  return `${sections.join('\n\n')}\n`
}

function header(metadata: RunMetadata, summary: RunSummary): string {
  const { primary } = summary.headline
  const level = confidenceLabel(summary.settings.confidence)
  const ci = primary.ci ? ` (${level} CI ${percentInterval(primary.ci)})` : ''
  const lines = [
    `## agentevalops run ${inertText(metadata.runId)}`,
    '',
    `**Pass rate: ${percent(primary.rate)}**${ci} over ${plural(primary.tasks, 'task')} · ` +
      `${fraction(summary.passed, summary.n)} trials passed · cost ${usd(summary.usage.costUsd)}`,
  ]
  if (summary.comparison) {
    const { verdict, baseline } = summary.comparison
    lines.push('', `**${VERDICT_MARK[verdict]} ${verdict}** against baseline ${inertText(baseline.runId)}`)
  }
  if (metadata.status === 'interrupted') {
    lines.push('', '> **Interrupted run:** only the trials that finished are counted.')
  } else if (metadata.status === 'partial-shard' && metadata.shard) {
    lines.push('', `> **Partial run:** shard ${metadata.shard.index} of ${metadata.shard.count}.`)
  }
  return lines.join('\n')
}

function benchmarksTable(trials: readonly ScoredTrial[]): string | undefined {
  const byBenchmark = new Map<string, { trials: number; passed: number; infra: number }>()
  for (const t of trials) {
    const row = byBenchmark.get(t.benchmark.id) ?? { trials: 0, passed: 0, infra: 0 }
    row.trials++
    if (t.passed) row.passed++
    if (t.outcome === 'infra_failure' || t.outcome === 'not_evaluated') row.infra++
    byBenchmark.set(t.benchmark.id, row)
  }
  if (byBenchmark.size === 0) return undefined
  const rows = [...byBenchmark].map(([id, r]) => [
    id,
    String(r.trials),
    String(r.passed),
    percent(r.passed / r.trials),
    String(r.infra),
  ])
  return markdownTable(['Benchmark', 'Trials', 'Passed', 'Pass rate', 'Infra failures'], rows, [
    'left',
    'right',
    'right',
    'right',
    'right',
  ])
}

function comparisonText(comparison: BaselineComparison): string {
  const lines = [
    `### Baseline ${inertText(comparison.baseline.runId)}: ${comparison.verdict}`,
    '',
    inertText(comparisonReason(comparison)),
    '',
  ]
  if (comparison.broken.length > 0) {
    lines.push(
      `**Broken tasks** (${comparison.broken.length}; always passed in the baseline, never pass now): ` +
        inertText(brokenText(comparison.broken, MAX_REGRESSIONS)),
      '',
    )
  }
  const regressions = comparison.overall.regressions
  if (regressions.length === 0) {
    lines.push('No paired task got worse.')
  } else {
    const worst = [...regressions].sort(byDrop)
    lines.push(`**Regressed tasks** (${regressions.length}; pass rate, baseline → this run):`, '')
    for (const r of worst.slice(0, MAX_REGRESSIONS)) {
      lines.push(`- ${inertText(taskKeyOf(r))}: ${percent(r.baseline)} → ${percent(r.candidate)}`)
    }
    if (worst.length > MAX_REGRESSIONS) lines.push(`- … and ${worst.length - MAX_REGRESSIONS} more`)
  }
  // A NO_GO an evaluator decided may rest on tasks no worse on the overall pass rate: name those too.
  const listed = new Set(regressions.map(taskKeyOf))
  for (const e of comparison.evaluators) {
    if (e.verdict !== 'NO_GO') continue
    const others = [...e.regressions]
      .sort(byDrop)
      .map(taskKeyOf)
      .filter((key) => !listed.has(key))
    if (others.length === 0) continue
    lines.push(
      '',
      `Also regressed on evaluator ${inertText(e.evaluatorId ?? 'overall')}: ${inertText(capped(others, MAX_REGRESSIONS))}`,
    )
  }
  return lines.join('\n')
}

/** Largest drop first. */
function byDrop(a: TaskRef, b: TaskRef): number {
  return b.baseline - b.candidate - (a.baseline - a.candidate)
}

function neverPassedText(summary: RunSummary): string | undefined {
  const never = summary.headline.neverPassed
  if (never.length === 0) return undefined
  return (
    `**⚠ ${plural(never.length, 'task')} never passed:** ` +
    inertText(tasksWithCounts(summary, never, MAX_NEVER_PASSED))
  )
}

/**
 * Appends `markdown` to the job summary file (GITHUB_STEP_SUMMARY), only inside GitHub Actions. Returns a message
 * saying why it could not, instead of throwing: a job summary is never worth failing a run for.
 */
export async function appendGithubStepSummary(
  env: Readonly<Record<string, string | undefined>>,
  markdown: string,
): Promise<string | null> {
  if (env.GITHUB_ACTIONS !== 'true') return null
  const path = env.GITHUB_STEP_SUMMARY
  if (!path) return null
  try {
    // Vitest's github-actions reporter appends its own summary to the same file: keep ours a block of its own.
    await appendFile(path, `\n${markdown.trimEnd()}\n`)
    return null
  } catch (error) {
    return `agentevalops: could not append the job summary to ${path}: ${errorMessage(error)}`
  }
}
