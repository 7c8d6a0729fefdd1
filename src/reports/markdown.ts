import {
  TRIAL_OUTCOMES,
  type BenchmarkInfo,
  type ReportGenerator,
  type ReportInput,
  type RunMetadata,
  type RunnerInfo,
  type RunSummary,
  type TrialRecord,
} from '../core/index.ts'
import { clip, DASH, decimal, integer, percent, seconds, steps, usd } from './format.ts'
import { markdownTable } from './markdown-table.ts'

export type MarkdownReportInput = ReportInput

/** The file name of the Markdown report in a bundle. */
export const MARKDOWN_REPORT_FILE = 'report.md'

/** The human-readable report of a run: a pure function of bundle data, so it can be re-rendered from a bundle. */
export function renderMarkdownReport({ metadata, trials, summary }: MarkdownReportInput): string {
  const sections = [
    header(metadata),
    overall(summary),
    outcomes(summary),
    evaluators(summary),
    trialTable(trials),
    findingsTable(trials),
    usage(summary),
  ]
  return `${sections.join('\n\n')}\n`
}

/** renderMarkdownReport as a ReportGenerator (the built-in reporter `markdown`). */
export function markdownReportGenerator(): ReportGenerator<ReportInput> {
  return { format: MARKDOWN_REPORT_FILE, render: renderMarkdownReport }
}

function header(metadata: RunMetadata): string {
  const lines = [`# Run ${metadata.runId}`, '']
  const facts: [string, string][] = [
    ['Status', metadata.status],
    ['Target', runners(metadata.targets, metadata.target)],
    ['Benchmark', benchmarks(metadata.benchmarks, metadata.benchmark)],
    ['Started', `${metadata.startedAt} (${seconds(metadata.durationSec)} s)`],
    ['Versions', `agentevalops ${metadata.sdkVersion}, Node ${metadata.node}, Vitest ${metadata.vitest}`],
  ]
  if (metadata.git.sha) facts.push(['Git', `${metadata.git.sha}${metadata.git.dirty ? ' (dirty)' : ''}`])
  if (metadata.shard) facts.push(['Shard', `${metadata.shard.index}/${metadata.shard.count}`])
  if (metadata.testNamePattern) facts.push(['Filter', `\`-t ${metadata.testNamePattern}\``])
  const labels = Object.entries(metadata.labels)
  if (labels.length > 0) facts.push(['Labels', labels.map(([k, v]) => `${k}=${v}`).join(', ')])
  lines.push(...facts.map(([name, value]) => `- **${name}:** ${value}`))
  const caveat = statusCaveat(metadata)
  if (caveat) lines.push('', `> ${caveat}`)
  return lines.join('\n')
}

function statusCaveat(metadata: RunMetadata): string | undefined {
  if (metadata.status === 'interrupted') {
    return '**Interrupted run:** only the trials that finished are reported; do not use it as a baseline.'
  }
  if (metadata.status === 'partial-shard' && metadata.shard) {
    return `**Partial run:** this bundle holds shard ${metadata.shard.index} of ${metadata.shard.count}.`
  }
  return undefined
}

function runners(all: readonly RunnerInfo[], first: RunnerInfo | null): string {
  const list = all.length > 0 ? all : first ? [first] : []
  return list.length > 0 ? list.map((r) => `${r.name} (${r.kind})`).join(', ') : DASH
}

function benchmarks(all: readonly BenchmarkInfo[], first: BenchmarkInfo | null): string {
  const list = all.length > 0 ? all : first ? [first] : []
  if (list.length === 0) return DASH
  return list
    .map((b) => `${b.id} ${b.version} (dataset ${b.datasetChecksum.slice(0, 12) || DASH})`)
    .join(', ')
}

function overall(summary: RunSummary): string {
  return [
    '## Overall',
    '',
    `**Pass rate: ${percent(summary.passRate)}** (${summary.passed} of ${summary.n} trials passed, n = ${summary.n})`,
  ].join('\n')
}

function outcomes(summary: RunSummary): string {
  const rows = TRIAL_OUTCOMES.flatMap((outcome) => {
    const count = summary.outcomes[outcome] ?? 0
    return count > 0 ? [[outcome, String(count), percent(summary.n > 0 ? count / summary.n : NaN)]] : []
  })
  if (rows.length === 0) return '## Outcomes\n\nNo trials.'
  return [
    '## Outcomes',
    '',
    markdownTable(['Outcome', 'Trials', 'Share'], rows, ['left', 'right', 'right']),
  ].join('\n')
}

function evaluators(summary: RunSummary): string {
  if (summary.evaluators.length === 0) return '## Evaluators\n\nNo evaluator scored this run.'
  const rows = summary.evaluators.map((e) => [
    e.evaluatorId,
    e.kind,
    String(e.n),
    decimal(e.mean),
    percent(e.passRate),
  ])
  return [
    '## Evaluators',
    '',
    markdownTable(['Evaluator', 'Kind', 'n', 'Mean score', 'Pass rate'], rows, [
      'left',
      'left',
      'right',
      'right',
      'right',
    ]),
  ].join('\n')
}

function trialTable(trials: readonly TrialRecord[]): string {
  if (trials.length === 0) return '## Trials\n\nNo trials recorded.'
  // Equal task ids in two benchmarks are different tasks: name the benchmark when a run has several.
  const multiBenchmark = new Set(trials.map((t) => t.benchmark.id)).size > 1
  const headers = [
    ...(multiBenchmark ? ['Benchmark'] : []),
    'Task',
    'Trial',
    'Outcome',
    'Terminated by',
    'Tokens',
    'Cost (USD)',
    'Wall (s)',
    'Failures',
  ]
  const align = headers.map((h) =>
    ['Trial', 'Tokens', 'Cost (USD)', 'Wall (s)'].includes(h) ? 'right' : 'left',
  )
  const rows = [...trials]
    .sort(byTrial)
    .map((t) => [
      ...(multiBenchmark ? [t.benchmark.id] : []),
      t.taskId,
      String(t.trial),
      t.outcome,
      t.result?.terminatedBy ?? DASH,
      integer(t.usage.tokens),
      usd(t.usage.costUsd),
      seconds(t.usage.wallSeconds),
      failures(t) || DASH,
    ])
  return ['## Trials', '', markdownTable(headers, rows, align)].join('\n')
}

/** Why a trial did not simply pass, with the trace steps each reason rests on. */
function failures(trial: TrialRecord): string {
  const reasons: string[] = []
  for (const score of trial.scores) {
    if (score.passed) continue
    const cited = steps(score.citations)
    const why = score.explanation ? `: ${clip(score.explanation, 80)}` : ''
    reasons.push(`${score.evaluatorId} ${decimal(score.score, 2)}${why}${cited ? ` (${cited})` : ''}`)
  }
  for (const verdict of trial.verdicts) {
    if (verdict.verdict === 'PASS') continue
    if (verdict.findings.length === 0) reasons.push(`policy ${verdict.checkerId} ${verdict.verdict}`)
    for (const finding of verdict.findings) {
      const cited = steps(finding.citations)
      reasons.push(
        `policy ${verdict.checkerId} ${finding.severity}: ${clip(finding.message, 80)}${cited ? ` (${cited})` : ''}`,
      )
    }
  }
  if (trial.result?.error) reasons.push(`error: ${clip(trial.result.error, 80)}`)
  return reasons.join('; ')
}

/** ` (steps 1, 3)`, unless the (clipped) message already names its steps. */
function citedUnlessSaid(message: string, citations: readonly number[]): string {
  if (citations.length === 0 || /\bsteps? \d/.test(message)) return ''
  return ` (${steps(citations)})`
}

/** More rows than this and the report stops being read; scores.json keeps every one. */
const MAX_FINDING_ROWS = 200

/**
 * What each evaluator found, per trial, with the steps it cites: the place to start reading a trace. A score
 * with no findings shows only when it failed, so a clean run keeps this section short.
 */
function findingsTable(trials: readonly TrialRecord[]): string {
  const rows: string[][] = []
  for (const t of [...trials].sort(byTrial)) {
    for (const score of t.scores) {
      const status = score.error !== null ? 'error' : score.passed ? 'pass' : 'FAIL'
      const details =
        score.error !== null
          ? [clip(score.error, 100)]
          : score.findings.map((f) => {
              const text = clip(f.message, 80)
              return `${f.type}: ${text}${citedUnlessSaid(text, f.citations)}`
            })
      if (details.length === 0 && score.passed) continue
      if (details.length === 0) details.push(clip(score.explanation, 100))
      rows.push([
        t.taskId,
        String(t.trial),
        score.evaluatorId,
        score.kind,
        `${decimal(score.score, 2)} ${status}`,
        steps(score.citations) || DASH,
        details.join('; '),
      ])
    }
  }
  if (rows.length === 0) return '## Evaluator findings\n\nNo evaluator found anything to report.'
  const shown = rows.slice(0, MAX_FINDING_ROWS)
  const more =
    rows.length > shown.length ? `\n\n… and ${rows.length - shown.length} more rows in scores.json.` : ''
  const table = markdownTable(['Task', 'Trial', 'Evaluator', 'Kind', 'Score', 'Cites', 'Findings'], shown, [
    'left',
    'right',
    'left',
    'left',
    'right',
    'left',
    'left',
  ])
  return `## Evaluator findings\n\n${table}${more}`
}

function usage(summary: RunSummary): string {
  const { tokens, costUsd, wallSeconds, turns } = summary.usage
  const n = summary.n
  const mean = (total: number) => (n > 0 ? total / n : NaN)
  const rows = [
    ['Total', integer(tokens), usd(costUsd), seconds(wallSeconds), integer(turns)],
    [
      'Mean per trial',
      integer(mean(tokens)),
      usd(mean(costUsd)),
      seconds(mean(wallSeconds)),
      decimal(mean(turns), 1),
    ],
  ]
  return [
    '## Usage',
    '',
    markdownTable(['', 'Tokens', 'Cost (USD)', 'Wall (s)', 'Turns'], rows, [
      'left',
      'right',
      'right',
      'right',
      'right',
    ]),
  ].join('\n')
}

function byTrial(a: TrialRecord, b: TrialRecord): number {
  return compare(a.benchmark.id, b.benchmark.id) || compare(a.taskId, b.taskId) || a.trial - b.trial
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
