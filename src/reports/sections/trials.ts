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
export function trialsSection(input: readonly ScoredTrial[] | ReportTrials): string {
  const trials = ReportTrials.from(input)
  if (trials.count === 0) return '## Trials\n\nNo trials recorded.'
  // Equal task ids in two benchmarks are different tasks: name the benchmark when a run has several.
  const benchmarks = [...trials.benchmarks.values()]
  const multiBenchmark = benchmarks.length > 1
  const notPassed = benchmarks.reduce((sum, b) => sum + b.notPassed, 0)
  const passed = trials.count - notPassed
  if (notPassed === 0) {
    return `## Trials\n\nAll ${plural(trials.count, 'trial')} passed; report.html and scores.json hold each of them.`
  }
  const listed = sharedOut(
    benchmarks.flatMap((b) => b.notPassedRows),
    (row) => row.benchmark,
    MAX_TRIAL_ROWS,
  )
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
  const rows = listed.map((row) => [...(multiBenchmark ? [row.benchmark] : []), ...row.cells])
  const which =
    listed.length < notPassed
      ? `the first ${listed.length} of the ${notPassed} that did not pass` +
        (multiBenchmark ? ', each benchmark its share' : '')
      : `the ${plural(notPassed, 'trial')} that did not pass`
  const lines = [
    '## Trials',
    '',
    `${passed} of ${plural(trials.count, 'trial')} passed and are not listed; ${which}:`,
    '',
    markdownTable(headers, rows, align),
  ]
  if (listed.length < notPassed) {
    lines.push(
      '',
      `… and ${inertText(unlistedText(benchmarks, listed, multiBenchmark))}. report.html and scores.json hold every trial.`,
    )
  }
  return lines.join('\n')
}

/** `12 more trials that did not pass (humaneval@weak 10, toy 2)`. */
function unlistedText(
  benchmarks: readonly BenchmarkRows[],
  listed: readonly TrialRow[],
  multiBenchmark: boolean,
): string {
  const parts: string[] = []
  let count = 0
  for (const b of benchmarks) {
    const unlisted = b.notPassed - listed.filter((row) => row.benchmark === b.id).length
    count += unlisted
    if (unlisted > 0) parts.push(`${b.id} ${unlisted}`)
  }
  return `${count} more ${count === 1 ? 'trial' : 'trials'} that did not pass${multiBenchmark ? ` (${parts.join(', ')})` : ''}`
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

/** A row of the trials table, without its benchmark column (whether there is one is known at the end). */
interface TrialRow {
  benchmark: string
  cells: string[]
}

/** What report.md lists of one benchmark's trials: the first rows of each table, and how many rows there are. */
interface BenchmarkRows {
  id: string
  notPassed: number
  /** The first MAX_TRIAL_ROWS trials that did not pass: no more can be listed, however the rows are shared out. */
  notPassedRows: TrialRow[]
  findingRows: number
  /** The first MAX_FINDING_ROWS finding rows. */
  findings: string[][]
}

/**
 * What report.md's trial sections read of a run's trials, a trial at a time in bundle order: per benchmark the
 * rows either section can show (their text, made from the trial's whole record as it passes) and the count of
 * the rest. A run's seal reads each spilled record once and keeps no record; the rows it keeps are bounded by
 * MAX_TRIAL_ROWS and MAX_FINDING_ROWS per benchmark, whatever the size of the run.
 */
export class ReportTrials {
  count = 0
  readonly benchmarks = new Map<string, BenchmarkRows>()

  /** Trials in any order, as a report of a bundle reads them. */
  static from(input: readonly ScoredTrial[] | ReportTrials): ReportTrials {
    if (input instanceof ReportTrials) return input
    const trials = new ReportTrials()
    for (const trial of [...input].sort(byTrial)) trials.add(trial)
    return trials
  }

  /**
   * Whether add(trial) makes a row of it (it failed, or a score erred, failed or found something); a trial that
   * makes none only counts, so a form of it with its pass and its scores' passes and errors stands in for it.
   */
  static showsRows(t: ScoredTrial): boolean {
    return !t.passed || t.scores.some((s) => s.error !== null || !s.passed || s.findings.length > 0)
  }

  /** The next trial in bundle order (benchmark, task, trial). */
  add(trial: ScoredTrial): void {
    this.count++
    let rows = this.benchmarks.get(trial.benchmark.id)
    if (!rows) {
      rows = { id: trial.benchmark.id, notPassed: 0, notPassedRows: [], findingRows: 0, findings: [] }
      this.benchmarks.set(trial.benchmark.id, rows)
    }
    if (!trial.passed) {
      if (rows.notPassed < MAX_TRIAL_ROWS)
        rows.notPassedRows.push({ benchmark: rows.id, cells: trialCells(trial) })
      rows.notPassed++
    }
    for (const row of findingRowsOf(trial)) {
      if (rows.findingRows < MAX_FINDING_ROWS) rows.findings.push(row)
      rows.findingRows++
    }
  }
}

function trialCells(t: ScoredTrial): string[] {
  return [
    t.taskId,
    String(t.trial),
    t.outcome,
    t.result?.terminatedBy ?? DASH,
    integer(t.usage.tokens),
    usd(t.usage.costUsd),
    seconds(t.usage.wallSeconds),
    failures(t) || DASH,
  ]
}

/** A trial's rows of the findings table: a score that erred, found something, or failed. */
function findingRowsOf(t: ScoredTrial): string[][] {
  const rows: string[][] = []
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
  return rows
}

/**
 * What each evaluator found, per trial, with the steps it cites: the place to start reading a trace. A score
 * with no findings shows only when it failed, so a clean run keeps this section short. In a run of several
 * benchmarks each gets its share of the rows, so a large one cannot crowd the others out.
 */
export function findingsSection(input: readonly ScoredTrial[] | ReportTrials): string {
  const benchmarks = [...ReportTrials.from(input).benchmarks.values()]
  const several = benchmarks.length > 1
  const share = Math.max(20, Math.floor(MAX_FINDING_ROWS / Math.max(1, benchmarks.length)))
  const shown: string[][] = []
  const more: string[] = []
  for (const { id, findings, findingRows } of benchmarks) {
    for (const row of findings.slice(0, share)) shown.push(several ? [id, ...row] : row)
    if (findingRows > share)
      more.push(`${findingRows - share} more rows${several ? ` of ${inertText(id)}` : ''}`)
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
