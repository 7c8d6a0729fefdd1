import type { ScoredTrial } from '../../core/index.ts'
import { clip, DASH, decimal, integer, plural, seconds, steps, usd } from '../format.ts'
import { inertText } from '../escape-markdown.ts'
import { markdownTable } from '../markdown-table.ts'
import { sharedOut } from '../shared-rows.ts'

/**
 * More rows than this and report.md stops being read (and at 10k trials would weigh megabytes); report.html and
 * scores.json keep every trial.
 */
export const MAX_TRIAL_ROWS = 100

/**
 * The trials that did not pass, with their outcome, usage and why; the passed ones are counted, not listed. Past
 * MAX_TRIAL_ROWS each benchmark gets its share of the rows, and the rest are counted per benchmark.
 */
export function trialsSection(trials: readonly ScoredTrial[]): string {
  if (trials.length === 0) return '## Trials\n\nNo trials recorded.'
  // Equal task ids in two benchmarks are different tasks: name the benchmark when a run has several.
  const multiBenchmark = new Set(trials.map((t) => t.benchmark.id)).size > 1
  const notPassed = [...trials].sort(byTrial).filter((t) => !t.passed)
  const passed = trials.length - notPassed.length
  if (notPassed.length === 0) {
    return `## Trials\n\nAll ${plural(trials.length, 'trial')} passed; report.html and scores.json hold each of them.`
  }
  const listed = sharedOut(notPassed, (t) => t.benchmark.id, MAX_TRIAL_ROWS)
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
  const rows = listed.map((t) => [
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
  const which =
    listed.length < notPassed.length
      ? `the first ${listed.length} of the ${notPassed.length} that did not pass` +
        (multiBenchmark ? ', each benchmark its share' : '')
      : `the ${plural(notPassed.length, 'trial')} that did not pass`
  const lines = [
    '## Trials',
    '',
    `${passed} of ${plural(trials.length, 'trial')} passed and are not listed; ${which}:`,
    '',
    markdownTable(headers, rows, align),
  ]
  if (listed.length < notPassed.length) {
    lines.push(
      '',
      `… and ${inertText(unlistedText(notPassed, listed, multiBenchmark))}. report.html and scores.json hold every trial.`,
    )
  }
  return lines.join('\n')
}

/** `12 more trials that did not pass (humaneval@weak 10, toy 2)`. */
function unlistedText(
  notPassed: readonly ScoredTrial[],
  listed: readonly ScoredTrial[],
  multiBenchmark: boolean,
): string {
  const shown = new Set(listed)
  const byBenchmark = new Map<string, number>()
  for (const t of notPassed) {
    if (shown.has(t)) continue
    byBenchmark.set(t.benchmark.id, (byBenchmark.get(t.benchmark.id) ?? 0) + 1)
  }
  const count = notPassed.length - listed.length
  const parts = [...byBenchmark].map(([id, n]) => `${id} ${n}`).join(', ')
  return `${count} more ${count === 1 ? 'trial' : 'trials'} that did not pass${multiBenchmark ? ` (${parts})` : ''}`
}

/** Why a trial did not simply pass, with the trace steps each reason rests on. */
function failures(trial: ScoredTrial): string {
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
export const MAX_FINDING_ROWS = 200

/** Whether findingsSection gives `score` a row: it erred, found something, or failed. */
export function hasFindingRow(score: ScoredTrial['scores'][number]): boolean {
  return score.error !== null || score.findings.length > 0 || !score.passed
}

/**
 * Which trials report.md may show row by row, asked of each trial in bundle order: per benchmark, the first
 * MAX_TRIAL_ROWS that did not pass and those holding the first MAX_FINDING_ROWS finding rows. Both sections take
 * their rows from each benchmark's first ones in that order and only count the rest, so a run that keeps whole
 * records for these alone renders the same report as one that kept every record.
 */
export class ShownTrials {
  private readonly seen = new Map<string, { notPassed: number; rows: number }>()

  /** Counts `trial`'s rows; true when one of them may be shown. */
  wants(trial: ScoredTrial): boolean {
    let seen = this.seen.get(trial.benchmark.id)
    if (!seen) this.seen.set(trial.benchmark.id, (seen = { notPassed: 0, rows: 0 }))
    const rows = trial.scores.filter(hasFindingRow).length
    const shown =
      (!trial.passed && seen.notPassed < MAX_TRIAL_ROWS) || (rows > 0 && seen.rows < MAX_FINDING_ROWS)
    if (!trial.passed) seen.notPassed++
    seen.rows += rows
    return shown
  }
}

/**
 * What each evaluator found, per trial, with the steps it cites: the place to start reading a trace. A score
 * with no findings shows only when it failed, so a clean run keeps this section short. In a run of several
 * benchmarks each gets its share of the rows, so a large one cannot crowd the others out.
 */
export function findingsSection(trials: readonly ScoredTrial[]): string {
  const byBenchmark = new Map<string, string[][]>()
  for (const t of [...trials].sort(byTrial)) {
    const rows = byBenchmark.get(t.benchmark.id) ?? []
    byBenchmark.set(t.benchmark.id, rows)
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
  const several = byBenchmark.size > 1
  const share = Math.max(20, Math.floor(MAX_FINDING_ROWS / Math.max(1, byBenchmark.size)))
  const shown: string[][] = []
  const more: string[] = []
  for (const [benchmark, rows] of byBenchmark) {
    for (const row of rows.slice(0, share)) shown.push(several ? [benchmark, ...row] : row)
    if (rows.length > share)
      more.push(`${rows.length - share} more rows${several ? ` of ${inertText(benchmark)}` : ''}`)
  }
  if (shown.length === 0) return '## Evaluator findings\n\nNo evaluator found anything to report.'
  const tail = more.length > 0 ? `\n\n… and ${more.join(', ')} in scores.json.` : ''
  const headers = ['Task', 'Trial', 'Evaluator', 'Kind', 'Score', 'Cites', 'Findings']
  const aligns = ['left', 'right', 'left', 'left', 'right', 'left', 'left'] as const
  const table = several
    ? markdownTable(['Benchmark', ...headers], shown, ['left', ...aligns])
    : markdownTable(headers, shown, [...aligns])
  return `## Evaluator findings\n\n${table}${tail}`
}

function byTrial(a: ScoredTrial, b: ScoredTrial): number {
  return compare(a.benchmark.id, b.benchmark.id) || compare(a.taskId, b.taskId) || a.trial - b.trial
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
