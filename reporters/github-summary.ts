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
import { capped, fraction, percent, plural, usd } from '../src/reports/format.ts'
import { headlineModel, type HeadlineModel } from '../src/reports/headline-model.ts'
import { inertText } from '../src/reports/escape-markdown.ts'
import { headlineGroupsTable } from '../src/reports/sections/headline.ts'
import { brokenText, comparisonReason, taskKeyOf, tasksWithCounts } from '../src/reports/summary-text.ts'
import { runUrl } from '../src/view/api.ts'

/** More names than this and a job summary stops being read; report.md and scores.json have them all. */
const MAX_REGRESSIONS = 30
const MAX_NEVER_PASSED = 20

export interface GithubSummaryInput {
  metadata: RunMetadata
  summary: RunSummary
  trials: readonly ScoredTrial[]
  /** As the console summary shows it (relative to the working directory, the workspace in Actions). */
  bundleDir: string
  /**
   * Where `agentevalops view` serves this run's runs folder (AGENTEVALOPS_VIEW_URL): the summary then links to the
   * run's page there. Only an http(s) URL is used.
   */
  viewUrl?: string | undefined
}

/** The variable that names the base URL of a served `agentevalops view`, for links to a run. */
export const VIEW_URL_ENV = 'AGENTEVALOPS_VIEW_URL'

const VERDICT_MARK: Record<ComparisonVerdict, string> = {
  GO: '✅',
  NO_GO: '❌',
  INCONCLUSIVE: '⚠️',
  INSUFFICIENT_EVIDENCE: '⚠️',
}

/**
 * The run as a GitHub Actions job summary: the headline pass rate with its interval, one row per benchmark × target, the
 * verdict against the baseline with the tasks that got worse, the tasks that never passed, and where the bundle
 * is. Every text a run provides is made inert, as in report.md: the summary is rendered on github.com.
 */
export function githubStepSummary({ metadata, summary, bundleDir, viewUrl }: GithubSummaryInput): string {
  const model = headlineModel(summary)
  const sections = [
    header(metadata, summary, model),
    // The same rows as the console summary and report.md.
    model.rows.length > 0 ? headlineGroupsTable(model) : undefined,
    summary.comparison && comparisonText(summary.comparison),
    neverPassedText(summary),
    `Bundle: ${inertText(bundleDir)}`,
    viewLink(viewUrl, bundleDir),
  ].filter((s): s is string => typeof s === 'string')
  return `${sections.join('\n\n')}\n`
}

/**
 * A link to the run in `agentevalops view` at `base`: the bundle's folder name is the run's name there. The URL is
 * parsed and written back by the URL parser, so it carries no space, `<` or `>` that would end the link early.
 */
function viewLink(base: string | undefined, bundleDir: string): string | undefined {
  if (base === undefined || base.trim() === '') return undefined
  let url: URL
  try {
    url = new URL(base.trim())
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  const folder = bundleDir
    .split(/[\\/]/)
    .filter((p) => p !== '')
    .pop()
  if (folder === undefined) return undefined
  return `[Open this run in agentevalops view](<${runUrl(url.href, folder)}>)`
}

function header(metadata: RunMetadata, summary: RunSummary, model: HeadlineModel): string {
  const counts = `${fraction(summary.passed, summary.n)} trials passed · cost ${usd(summary.usage.costUsd)}`
  let rate: string
  if (model.pooled) {
    const { primary, scope } = model.pooled
    const ci = primary.ci === '—' ? '' : ` (${model.level} CI ${primary.ci})`
    const label = scope === null ? 'Pass rate' : `Pass rate over ${inertText(scope)}`
    rate = `**${label}: ${primary.rate}**${ci} over ${plural(primary.tasks, 'task')} · ${counts}`
  } else {
    rate = `${counts}\n\n> ${model.note ?? ''}`
  }
  const lines = [`## agentevalops run ${inertText(metadata.runId)}`, '', rate]
  if (summary.comparison) {
    const { verdict, baseline } = summary.comparison
    lines.push('', `**${VERDICT_MARK[verdict]} ${verdict}** against baseline ${inertText(baseline.runId)}`)
  }
  if (metadata.status === 'interrupted') {
    lines.push('', '> **Interrupted run:** only the trials that finished are counted.')
  } else if (metadata.status === 'partial-shard' && metadata.shard) {
    lines.push('', `> **Partial run:** shard ${metadata.shard.index} of ${metadata.shard.count}.`)
  } else if (metadata.mergedFrom && metadata.mergedFrom.length > 0) {
    // The merge job's summary: the figures are the whole run's, not the last shard's.
    lines.push(
      '',
      `> **Merged** from ${plural(metadata.mergedFrom.length, 'shard')}: every trial of the run.`,
    )
  }
  return lines.join('\n')
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
    inertText(tasksWithCounts(summary.tasks, never, MAX_NEVER_PASSED))
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
