import {
  TRACE_EVENT_KINDS,
  type EvaluatorScore,
  type ScoredTrial,
  type ThrownError,
  type TraceEvent,
  type TrialRecord,
} from '../../core/index.ts'
import { decimal, integer, seconds, usd } from '../format.ts'
import { taskKeyOf } from '../summary-text.ts'
import type { EventData, FindingData, PhaseData, ScoreData, TrialData } from './page-data.ts'

/** A trial as the report takes it: scores.json's, or a live record, whose phase timing the page then shows. */
export type HtmlReportTrial = ScoredTrial & Pick<Partial<TrialRecord>, 'timing'>

/**
 * A string in an event payload or an answer longer than this is cut: a report that must open in a browser cannot
 * carry every megabyte a tool returned. The bundle keeps the whole text.
 */
export const MAX_TEXT = 10_000

/**
 * The event kinds a row names by index (EventData's third item): fixed, so that a row is the same text whichever
 * trials came before it. A kind outside the list (none today) is written as itself.
 */
export const EVENT_KINDS: readonly string[] = TRACE_EVENT_KINDS
const KIND_INDEX = new Map(EVENT_KINDS.map((kind, i) => [kind, i]))

/**
 * One trial as the page shows it, from its record and its own events alone: nothing from the summary or from other
 * trials, so a row can be made as the trial is folded and is the same text alone or within a run. Its task is
 * named by key; the page finds the task.
 */
export function trialRowData(record: HtmlReportTrial, events: readonly TraceEvent[]): TrialData {
  const trial = trialOf(record, taskKeyOf({ benchmarkId: record.benchmark.id, taskId: record.taskId }))
  if (events.length > 0) trial.events = eventsOf(record, events)
  return trial
}

/**
 * Each record's events, in the records' order. Events of format 1 and 2 bundles do not name their benchmark: they
 * belong to the first record (in `records`' order) of their task and trial.
 */
export function eventsByTrial(
  records: readonly HtmlReportTrial[],
  events: readonly TraceEvent[],
): TraceEvent[][] {
  const exact = new Map<string, number>()
  const byTask = new Map<string, number>()
  records.forEach((r, i) => {
    exact.set(`${r.benchmark.id}\0${r.taskId}\0${r.trial}`, i)
    const loose = `${r.taskId}\0${r.trial}`
    if (!byTask.has(loose)) byTask.set(loose, i)
  })
  const grouped = records.map((): TraceEvent[] => [])
  for (const event of events) {
    const index =
      event.benchmark === undefined
        ? byTask.get(`${event.taskId}\0${event.trial}`)
        : exact.get(`${event.benchmark}\0${event.taskId}\0${event.trial}`)
    if (index !== undefined) grouped[index]!.push(event)
  }
  return grouped
}

function trialOf(record: HtmlReportTrial, task: string): TrialData {
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

/** The trial's events in step order, timed from the trial's start when the record has it, else from its first event. */
function eventsOf(record: HtmlReportTrial, events: readonly TraceEvent[]): EventData[] {
  // Events mostly arrive in step order: sort only when they do not.
  const list = inStepOrder(events) ? events : [...events].sort((a, b) => a.step - b.step)
  const origin = Date.parse(record.timing?.startedAt ?? list[0]!.ts)
  return list.map((e): EventData => {
    const at = Math.max(0, Date.parse(e.ts) - origin)
    const event: EventData = [e.step, at, KIND_INDEX.get(e.kind) ?? e.kind, capStrings(e.payload)]
    if (e.tokensDelta > 0 || e.costDeltaUsd > 0) event.push(usageText(e.tokensDelta, e.costDeltaUsd))
    return event
  })
}

function inStepOrder(events: readonly TraceEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (events[i]!.step < events[i - 1]!.step) return false
  return true
}

function usageText(tokens: number, cost: number): string {
  const parts = [...(tokens > 0 ? [`${integer(tokens)} tok`] : []), ...(cost > 0 ? [usd(cost)] : [])]
  return parts.join(' · ')
}

export function capText(text: string): string {
  if (text.length <= MAX_TEXT) return text
  return `${text.slice(0, MAX_TEXT)}… [${integer(text.length - MAX_TEXT)} more characters: the bundle keeps them all]`
}

/** A JSON value with every long string cut (see MAX_TEXT): the value itself when it has none, else a copy. */
function capStrings(value: unknown): unknown {
  return hasLongText(value) ? capCopy(value) : value
}

function hasLongText(value: unknown): boolean {
  if (typeof value === 'string') return value.length > MAX_TEXT
  if (value === null || typeof value !== 'object') return false
  if (Array.isArray(value)) return value.some(hasLongText)
  for (const key in value) if (hasLongText((value as Record<string, unknown>)[key])) return true
  return false
}

function capCopy(value: unknown): unknown {
  if (typeof value === 'string') return capText(value)
  if (Array.isArray(value)) return value.map(capCopy)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = capCopy(v)
    return out
  }
  return value
}

/** Benchmark, task, trial: the order the page lists trials in, and renderHtmlReport writes rows in. */
export function byTrial(a: ScoredTrial, b: ScoredTrial): number {
  return compare(a.benchmark.id, b.benchmark.id) || compare(a.taskId, b.taskId) || a.trial - b.trial
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
