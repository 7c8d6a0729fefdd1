import type { ScoredTrial, TraceEvent } from '../core/index.ts'
import type { CheckName } from './checks.ts'
import { quote, type FindingList } from './findings.ts'
import { describeTrial, recordKey, SCORES_FILE, TRACES_FILE, type TrialKey } from './layout.ts'

/** What scores.json says about one trial's trace: how many events it has, and which steps its findings cite. */
interface Claim {
  key: TrialKey
  index: number
  eventCount: number
  events: number
  /** The agent ran to its end: every tool call it made was answered. */
  completed: boolean
  /** Cited step → who cites it (e.g. `scores[0] "exact-match"`); a step is removed once its event is seen. */
  cited: Map<number, string[]>
}

/** An open tool call of the trial being read. */
interface OpenCall {
  step: number
  tool: string
}

/** Open tool calls of the trial being read, by callId (or, for calls without one, by tool name), oldest first. */
type OpenCalls = Map<string, OpenCall[]>

/**
 * What scores.json claims about each trial's trace, held against the trace as it streams past: eventCount is the
 * number of the trial's events, every cited step is one of its events, and tool calls and results pair up. Only a
 * recomputed manifest stands between an edit to one file and these: each file alone still matches its schema.
 * Memory grows with the citations scores.json holds, not with the trace.
 */
export class TraceClaims {
  private readonly claims = new Map<string, Claim>()
  private open: OpenCalls = new Map()
  private openByTool: OpenCalls = new Map()
  /** The trial being read has made a call, and had a result, without a callId: the agent records both. */
  private madeCalls = false
  private hadResults = false
  private openKey: string | undefined
  private openTrial: TrialKey | undefined
  private openClaim: Claim | undefined

  /** `keyOf` is the trace checker's key for a trial, so that both follow trials the same way. */
  constructor(
    trials: readonly ScoredTrial[],
    keyOf: (key: TrialKey) => string,
    private readonly findings: FindingList,
  ) {
    trials.forEach((trial, index) => {
      const key = keyOf(recordKey(trial))
      // A duplicate is reported by duplicate-trials: the first record is the one held against the trace.
      if (this.claims.has(key)) return
      this.claims.set(key, {
        key: recordKey(trial),
        index,
        eventCount: trial.eventCount,
        events: 0,
        completed: trial.result?.terminatedBy === 'completed',
        cited: citedSteps(trial),
      })
    })
  }

  /** One event of the trial `key` (the checker's key), `trial` as the event names it. */
  event(key: string, trial: TrialKey, event: TraceEvent, where: string): void {
    if (key !== this.openKey) {
      this.closeTrial()
      this.openKey = key
      this.openTrial = trial
      this.openClaim = this.claims.get(key)
    }
    const claim = this.openClaim
    if (claim) {
      claim.events += 1
      claim.cited.delete(event.step)
    }
    if (event.kind !== 'agent.tool_call' && event.kind !== 'agent.tool_result') return
    const id = callIdOf(event.payload)
    const tool = String(event.payload['tool'])
    if (event.kind === 'agent.tool_call') {
      if (id === undefined) this.madeCalls = true
      const open = id === undefined ? this.openByTool : this.open
      push(open, id ?? tool, { step: event.step, tool })
      return
    }
    if (id !== undefined) {
      if (shift(this.open, id) === undefined) {
        this.report(
          'tool-pairs',
          TRACES_FILE,
          `${where}: the tool_result of call ${quote(id)} (tool ${quote(tool)}) at step ${event.step} of ${describeTrial(trial)} answers no earlier tool_call`,
          'tool-pairs',
          'tool calls and results that do not pair up',
        )
      }
      return
    }
    // Without a callId a result answers the oldest open call of its tool: a scripted or command agent's calls
    // without ids first, else one with an id whose result left the id out.
    this.hadResults = true
    if (shift(this.openByTool, tool) !== undefined || this.answerIdCallOf(tool)) return
    // An agent whose transcript holds only its results is not held to calls it never writes.
    if (!this.madeCalls) return
    this.report(
      'tool-pairs',
      TRACES_FILE,
      `${where}: the tool_result of tool ${quote(tool)} at step ${event.step} of ${describeTrial(trial)} answers no earlier tool_call of that tool`,
      'tool-pairs',
      'tool calls and results that do not pair up',
    )
  }

  finish(): void {
    this.closeTrial()
    for (const claim of this.claims.values()) {
      const where = `trials[${claim.index}] (${describeTrial(claim.key)})`
      // A trial without events is reported by trials-match-traces; its eventCount and citations follow from that.
      if (claim.events === 0) continue
      if (claim.events !== claim.eventCount) {
        this.report(
          'event-count',
          SCORES_FILE,
          `${where}: eventCount is ${claim.eventCount} but traces.jsonl holds ${claim.events} event(s) of it`,
          'event-count',
          'trials whose eventCount is not their number of events',
        )
      }
      for (const [step, citers] of claim.cited) {
        this.report(
          'citations',
          SCORES_FILE,
          `${where}: ${nameCiters(citers)} cite(s) step ${step}, which is not an event of the trial in traces.jsonl`,
          'citations',
          'citations of steps the trace does not have',
        )
      }
    }
  }

  /**
   * A call left open is a finding only in a trial that completed: one cut short (a limit, an error, a kill) may
   * well have stopped while a tool ran.
   */
  private closeTrial(): void {
    const trial = this.openTrial
    if (trial && this.openClaim?.completed === true) {
      const unanswered = (call: string, step: number) =>
        this.report(
          'tool-pairs',
          TRACES_FILE,
          `${call} at step ${step} of ${describeTrial(trial)} has no tool_result, though the trial completed`,
          'tool-pairs',
          'tool calls and results that do not pair up',
        )
      for (const [id, calls] of this.open)
        for (const { step } of calls) unanswered(`the tool_call ${quote(id)}`, step)
      // Likewise one whose transcript holds only its calls (a script of calls alone, a CLI that logs no results).
      if (this.hadResults) {
        for (const [tool, calls] of this.openByTool)
          for (const { step } of calls) unanswered(`the tool_call of tool ${quote(tool)}`, step)
      }
    }
    this.open = new Map()
    this.openByTool = new Map()
    this.madeCalls = false
    this.hadResults = false
  }

  /** Answers the oldest open call of `tool` that has a callId, if there is one. */
  private answerIdCallOf(tool: string): boolean {
    let oldest: { id: string; step: number } | undefined
    for (const [id, calls] of this.open) {
      const first = calls.find((c) => c.tool === tool)
      if (first && (oldest === undefined || first.step < oldest.step)) oldest = { id, step: first.step }
    }
    if (oldest === undefined) return false
    const calls = this.open.get(oldest.id)!
    calls.splice(
      calls.findIndex((c) => c.step === oldest.step),
      1,
    )
    if (calls.length === 0) this.open.delete(oldest.id)
    return true
  }

  private report(check: CheckName, file: string, message: string, kind: string, label: string): void {
    this.findings.add(check, file, message, { key: `${file}:${kind}`, label })
  }
}

function citedSteps(trial: ScoredTrial): Map<number, string[]> {
  const cited = new Map<number, string[]>()
  const cite = (steps: readonly number[], who: string) => {
    for (const step of steps) {
      const citers = cited.get(step) ?? []
      if (!citers.includes(who)) citers.push(who)
      cited.set(step, citers)
    }
  }
  trial.scores.forEach((score, i) => {
    const who = `scores[${i}] ${JSON.stringify(score.evaluatorId)}`
    cite(score.citations, who)
    score.findings.forEach((finding, j) => cite(finding.citations, `${who} findings[${j}]`))
  })
  trial.verdicts.forEach((verdict, i) => {
    const who = `verdicts[${i}] ${JSON.stringify(verdict.checkerId)}`
    verdict.findings.forEach((finding, j) => cite(finding.citations, `${who} findings[${j}]`))
  })
  return cited
}

/** Citers named per finding: a hostile file may have thousands cite one step. */
const MAX_CITERS = 3

function nameCiters(citers: readonly string[]): string {
  const named = citers.slice(0, MAX_CITERS).join(', ')
  return citers.length > MAX_CITERS ? `${named} and ${citers.length - MAX_CITERS} more` : named
}

function push(open: OpenCalls, key: string, call: OpenCall): void {
  const calls = open.get(key)
  if (calls) calls.push(call)
  else open.set(key, [call])
}

/** Takes the oldest open call under `key`; undefined when none is open. */
function shift(open: OpenCalls, key: string): OpenCall | undefined {
  const calls = open.get(key)
  const call = calls?.shift()
  if (calls?.length === 0) open.delete(key)
  return call
}

/**
 * Calls pair by callId where they have one: the callable runner's ctx.toolCall gives each call one and records its
 * result under it. Events without one (a scripted runner's steps, a command agent's transcript) are what the agent
 * says it did: they pair in order per tool name, each result answering the oldest open call of its tool, and an
 * unpaired one counts only in a trial that shows the agent records the other side too.
 */
function callIdOf(payload: Record<string, unknown>): string | undefined {
  const callId = payload['callId']
  return typeof callId === 'string' ? callId : undefined
}
