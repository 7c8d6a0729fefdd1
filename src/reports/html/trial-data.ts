import type {
  EvaluatorScore,
  RunSummary,
  ScoredTrial,
  ThrownError,
  TraceEvent,
  TrialRecord,
} from '../../core/index.ts'
import { DASH, decimal, fraction, integer, percent, seconds, usd } from '../format.ts'
import { taskKeyOf } from '../summary-text.ts'
import type { EventData, FindingData, PhaseData, ScoreData, TaskInfo, TrialData } from './page-data.ts'

/** A trial as the report takes it: scores.json's, or a live record, whose phase timing the page then shows. */
export type HtmlReportTrial = ScoredTrial & Pick<Partial<TrialRecord>, 'timing'>

/**
 * A string in an event payload or an answer longer than this is cut: a report that must open in a browser cannot
 * carry every megabyte a tool returned. The bundle keeps the whole text.
 */
export const MAX_TEXT = 10_000

export interface TrialTables {
  tasks: TaskInfo[]
  trials: TrialData[]
  kinds: string[]
  /** Task key → index into `tasks` (and into summary.tasks, whose order it keeps). */
  taskIndex: Map<string, number>
  tokensByTask: Map<string, number>
}

/** Tasks in the summary's order, each with its trials, each with its events in step order. */
export function trialTables(
  summary: RunSummary,
  records: readonly HtmlReportTrial[],
  events: readonly TraceEvent[],
): TrialTables {
  const tasks: TaskInfo[] = summary.tasks.map((t) => ({
    key: taskKeyOf(t),
    benchmark: t.benchmarkId,
    taskId: t.taskId,
    line: [
      `${fraction(t.passed, t.trials)} passed`,
      `pass rate ${percent(t.passRate)}`,
      `mean score ${decimal(t.meanScore)}`,
      usd(t.costUsd),
      ...(t.category === null ? [] : [`category ${t.category}`]),
      ...(t.flaky ? ['flaky'] : []),
    ].join(' · '),
    trials: [],
  }))
  const taskIndex = new Map(tasks.map((t, i) => [t.key, i]))
  const tokensByTask = new Map<string, number>()
  const sorted = [...records].sort(byTrial)
  const trials = sorted.map((record, index) => {
    const key = taskKeyOf({ benchmarkId: record.benchmark.id, taskId: record.taskId })
    let task = taskIndex.get(key)
    if (task === undefined) {
      // A trial the summary has no task for (it should not happen): still reachable from the page.
      task =
        tasks.push({ key, benchmark: record.benchmark.id, taskId: record.taskId, line: DASH, trials: [] }) - 1
      taskIndex.set(key, task)
    }
    tasks[task]!.trials.push(index)
    tokensByTask.set(key, (tokensByTask.get(key) ?? 0) + record.usage.tokens)
    return trialOf(record, task)
  })
  const kinds = attachEvents(sorted, trials, events)
  return { tasks, trials, kinds, taskIndex, tokensByTask }
}

function trialOf(record: HtmlReportTrial, task: number): TrialData {
  const result = record.result
  const line = [
    result?.terminatedBy ?? 'no agent result',
    `${integer(record.usage.tokens)} tokens`,
    usd(record.usage.costUsd),
    `${seconds(record.usage.wallSeconds)} s`,
    `${integer(record.usage.turns)} turns`,
    ...(record.reusedFrom ? [`reused from ${record.reusedFrom.runId} (${record.reusedFrom.mode})`] : []),
  ].join(' · ')
  const trial: TrialData = {
    task,
    trial: record.trial,
    outcome: record.outcome,
    passed: record.passed,
    line,
    answer: result?.finalAnswer == null ? null : capText(result.finalAnswer),
    scores: record.scores.map(scoreOf),
    events: [],
  }
  if (result?.error != null) trial.error = capText(result.error)
  if (result?.thrown) trial.thrown = stackText(result.thrown)
  if (record.warnings.length > 0) trial.warnings = record.warnings.map(capText)
  if (record.verdicts.length > 0) {
    trial.verdicts = record.verdicts.map((v) => ({
      checker: v.checkerId,
      verdict: v.verdict,
      ...nonEmpty(
        'findings',
        v.findings.map((f) => findingOf(f.severity, f.message, f.citations)),
      ),
    }))
  }
  if (record.timing) trial.phases = phasesOf(record.timing)
  return trial
}

/** `{ [key]: items }`, or nothing when there are none: the page reads a missing list as empty. */
function nonEmpty<K extends string, T>(key: K, items: readonly T[]): { [P in K]?: T[] } {
  return (items.length > 0 ? { [key]: [...items] } : {}) as { [P in K]?: T[] }
}

function findingOf(type: string, message: string, citations: readonly number[]): FindingData {
  return { type, message: capText(message), ...nonEmpty('citations', citations) }
}

function scoreOf(score: EvaluatorScore): ScoreData {
  return {
    evaluator: score.evaluatorId,
    kind: score.kind,
    score: decimal(score.score, 2),
    status: score.error !== null ? 'error' : score.passed ? 'pass' : 'FAIL',
    explanation: capText(score.explanation),
    ...(score.error === null ? {} : { error: capText(score.error) }),
    ...(score.thrown ? { thrown: stackText(score.thrown) } : {}),
    ...nonEmpty('citations', score.citations),
    ...nonEmpty(
      'findings',
      score.findings.map((f) => findingOf(f.type, f.message, f.citations)),
    ),
  }
}

/** `TypeError [ENOENT]: message` and `    at …` per frame, as Node prints a stack. */
export function stackText(thrown: ThrownError): string {
  const head = `${thrown.type}${thrown.code === undefined ? '' : ` [${thrown.code}]`}: ${thrown.message}`
  return capText([head, ...thrown.stack.map((frame) => `    at ${frame}`)].join('\n'))
}

function phasesOf(timing: NonNullable<HtmlReportTrial['timing']>): PhaseData[] {
  return timing.phases.map((p) => ({
    name: p.name,
    text: `from +${seconds(p.startMs / 1000)} s for ${seconds(p.durationMs / 1000)} s`,
  }))
}

/**
 * Each event to its trial. Events of format 1 and 2 bundles do not name their benchmark: they belong to the one
 * benchmark that has their task (the first, if several do).
 */
function attachEvents(
  records: readonly HtmlReportTrial[],
  trials: TrialData[],
  events: readonly TraceEvent[],
): string[] {
  const exact = new Map<string, number>()
  const byTask = new Map<string, number>()
  records.forEach((r, i) => {
    exact.set(`${r.benchmark.id}\0${r.taskId}\0${r.trial}`, i)
    const loose = `${r.taskId}\0${r.trial}`
    if (!byTask.has(loose)) byTask.set(loose, i)
  })
  const grouped = new Map<number, TraceEvent[]>()
  for (const event of events) {
    const index =
      event.benchmark === undefined
        ? byTask.get(`${event.taskId}\0${event.trial}`)
        : exact.get(`${event.benchmark}\0${event.taskId}\0${event.trial}`)
    if (index === undefined) continue
    const list = grouped.get(index)
    if (list) list.push(event)
    else grouped.set(index, [event])
  }
  const kinds: string[] = []
  const kindIndex = new Map<string, number>()
  const kindOf = (kind: string) => {
    let index = kindIndex.get(kind)
    if (index === undefined) kindIndex.set(kind, (index = kinds.push(kind) - 1))
    return index
  }
  for (const [index, list] of grouped) {
    list.sort((a, b) => a.step - b.step)
    const startedAt = records[index]!.timing?.startedAt
    const origin = Date.parse(startedAt ?? list[0]!.ts)
    trials[index]!.events = list.map((e): EventData => {
      const usage = usageText(e.tokensDelta, e.costDeltaUsd)
      const at = Math.max(0, Date.parse(e.ts) - origin)
      const event: EventData = [e.step, at, kindOf(e.kind), capStrings(e.payload)]
      return usage === '' ? event : [...event, usage]
    })
  }
  return kinds
}

function usageText(tokens: number, cost: number): string {
  const parts = [...(tokens > 0 ? [`${integer(tokens)} tok`] : []), ...(cost > 0 ? [usd(cost)] : [])]
  return parts.join(' · ')
}

export function capText(text: string): string {
  if (text.length <= MAX_TEXT) return text
  return `${text.slice(0, MAX_TEXT)}… [${integer(text.length - MAX_TEXT)} more characters: the bundle keeps them all]`
}

/** A copy of a JSON value with every long string cut (see MAX_TEXT). */
function capStrings(value: unknown): unknown {
  if (typeof value === 'string') return capText(value)
  if (Array.isArray(value)) return value.map(capStrings)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = capStrings(v)
    return out
  }
  return value
}

function byTrial(a: ScoredTrial, b: ScoredTrial): number {
  return compare(a.benchmark.id, b.benchmark.id) || compare(a.taskId, b.taskId) || a.trial - b.trial
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
