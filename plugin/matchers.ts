import { expect } from 'vitest'
import type { MatcherState } from 'vitest'
import {
  AgentResult,
  type TaskSpec,
  type TerminatedBy,
  type ToolSpec,
  type TraceEvent,
} from '../src/core/index.ts'
import {
  checkCallsTool,
  checkCallsToolsInOrder,
  checkPolicyPasses,
  checkTerminatedWith,
  checkTrajectory,
  checkValidToolCalls,
  checkWithinBudget,
  findCycles,
  findHallucinatedToolResults,
  findLoops,
  runJudge,
  type LlmJudgeOptions,
  type ReferenceCall,
  type TrajectoryOptions,
} from '../src/evaluators/index.ts'

/** What the trace matchers accept: the events of one trial, or anything that carries them. */
export type TraceLike = readonly TraceEvent[] | { events: readonly TraceEvent[] }

export interface Budget {
  tokens?: number
  costUsd?: number
  seconds?: number
  turns?: number
}

/** Options of `toSatisfyJudge`: the judge's own, plus the score the trial must reach. */
export type JudgeMatcherOptions = Omit<LlmJudgeOptions, 'rubric'> & {
  /** Pass when the judge's score is at least this; without it, the judge's own pass/fail verdict decides. */
  threshold?: number
}

/**
 * Synchronous on purpose: an un-awaited async matcher passes silently in Vitest. The one exception,
 * `toSatisfyJudge`, calls a model and must be awaited: `await expect(trial).toSatisfyJudge(rubric)`.
 */
/** Repeats of one call, and cycles of calls that learn nothing new (see findLoops and findCycles). */
export interface LoopMatcherOptions {
  /** Identical calls with the same outcome (result, error or none) that make a loop (default 3). */
  minRepeats?: number
  /** Only count repeats within this many consecutive tool calls. */
  window?: number
  /** Also fail on cycles (A, B, A, B, …) with no new observation in between (default true). */
  cycles?: boolean
  /** Longest cycle looked for, in calls (default 4). */
  maxCycleLength?: number
  /** Passes through a cycle, the first included, that make it a loop (default 3). */
  minCycleRepeats?: number
}

export interface TraceMatchers<R = unknown> {
  toHaveNoLoops: (options?: LoopMatcherOptions) => R
  toHaveNoHallucinatedToolResults: () => R
  toMatchTrajectory: (reference: ReferenceCall[], options?: Partial<TrajectoryOptions>) => R
  /** Against `tools`, or the received trial's `task.tools`. */
  toHaveValidToolCalls: (tools?: ToolSpec[]) => R
  /** Async: await it. The received value is a trial ({ task, events, result? }), e.g. the one `assert` gets. */
  toSatisfyJudge: (rubric: string, options?: JudgeMatcherOptions) => Promise<R>
  toCallTool: (name: string, args?: Record<string, unknown>) => R
  toCallToolsInOrder: (names: string[], options?: { mode?: 'exact' | 'subsequence' }) => R
  toStayWithinBudget: (budget: Budget) => R
  toTerminateWith: (reason: TerminatedBy) => R
  toPassPolicy: () => R
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any
  interface Matchers<T = any> extends TraceMatchers<T> {}
}

interface Check {
  pass: boolean
  message: string
}

function eventsOf(received: unknown, matcher: string): readonly TraceEvent[] {
  if (Array.isArray(received)) return received as TraceEvent[]
  if (received && typeof received === 'object' && Array.isArray((received as { events?: unknown }).events)) {
    return (received as { events: TraceEvent[] }).events
  }
  throw new TypeError(`${matcher}: expected trace events (an array, or an object with an events array)`)
}

/**
 * The engine's own wall time, when the received trial carries its result: the trace's first event comes after the
 * trial started, so the events alone under-measure it (a trial stopped by its time limit would stay "within" it).
 */
function wallTimeOf(received: unknown): { wallSeconds: number } | null {
  if (Array.isArray(received) || !received || typeof received !== 'object') return null
  const result = (received as { result?: unknown }).result
  const wallSeconds =
    result && typeof result === 'object' ? (result as { wallSeconds?: unknown }).wallSeconds : undefined
  return typeof wallSeconds === 'number' ? { wallSeconds } : null
}

/** The task a received trial carries; matchers that need one say so by name. */
function taskOf(received: unknown, matcher: string): TaskSpec | undefined {
  if (Array.isArray(received) || !received || typeof received !== 'object') return undefined
  const task = (received as { task?: unknown }).task
  if (task === undefined) return undefined
  if (task && typeof task === 'object' && typeof (task as { id?: unknown }).id === 'string')
    return task as TaskSpec
  throw new TypeError(`${matcher}: the received trial's task is not a task`)
}

/** The result a received trial carries, or one read from its events (final answer, terminal event). */
function resultOf(received: unknown, events: readonly TraceEvent[]): AgentResult {
  const given = (received as { result?: unknown }).result
  const parsed = AgentResult.safeParse(given)
  if (parsed.success) return parsed.data
  const answer = events.filter((e) => e.kind === 'agent.final_answer').at(-1)
  const terminal = events.find((e) => e.kind === 'agent.terminal')
  return {
    success: terminal?.kind === 'agent.terminal' ? terminal.payload.success : answer !== undefined,
    finalAnswer: answer?.kind === 'agent.final_answer' ? answer.payload.answer : null,
    artifacts: [],
    error: terminal?.kind === 'agent.terminal' ? terminal.payload.error : null,
    totalCostUsd: 0,
    totalTokens: 0,
    turns: 0,
    wallSeconds: 0,
    terminatedBy: terminal?.kind === 'agent.terminal' ? terminal.payload.terminatedBy : 'completed',
  }
}

/** Options objects without the keys left undefined, for option parsers that reject an explicit undefined. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** Adapts a trace check to a matcher result; `notMessage` explains a pass when the assertion was negated. */
function toResult(this: MatcherState, check: Check, notMessage: string) {
  return { pass: check.pass, message: () => (this.isNot ? notMessage : check.message) }
}

expect.extend({
  toHaveNoLoops(this: MatcherState, received: unknown, options: LoopMatcherOptions = {}) {
    const events = eventsOf(received, 'toHaveNoLoops')
    const { cycles = true, maxCycleLength, minCycleRepeats, ...repeatOptions } = options
    const checks = [findLoops(events, repeatOptions)]
    if (cycles) checks.push(findCycles(events, definedOnly({ maxCycleLength, minCycleRepeats })))
    const failed = checks.filter((c) => !c.pass)
    const check =
      failed.length === 0 ? checks[0]! : { pass: false, message: failed.map((c) => c.message).join('; ') }
    return toResult.call(this, check, 'expected the trace to contain a tool-call loop, but it has none')
  },
  toHaveNoHallucinatedToolResults(this: MatcherState, received: unknown) {
    const check = findHallucinatedToolResults(eventsOf(received, 'toHaveNoHallucinatedToolResults'))
    return toResult.call(this, check, `expected a hallucinated tool result, but ${check.message}`)
  },
  toMatchTrajectory(
    this: MatcherState,
    received: unknown,
    reference: ReferenceCall[],
    options?: Partial<TrajectoryOptions>,
  ) {
    const mode = options?.mode ?? 'exact'
    const check = checkTrajectory(eventsOf(received, 'toMatchTrajectory'), reference, { ...options, mode })
    return toResult.call(
      this,
      check,
      `expected the tool calls not to match the reference (${mode}), but ${check.message}`,
    )
  },
  toHaveValidToolCalls(this: MatcherState, received: unknown, tools?: ToolSpec[]) {
    const events = eventsOf(received, 'toHaveValidToolCalls')
    const defined = tools ?? taskOf(received, 'toHaveValidToolCalls')?.tools
    if (defined === undefined) {
      throw new TypeError(
        'toHaveValidToolCalls: give the tool definitions, or a trial whose task has tools ({ task, events })',
      )
    }
    const check = checkValidToolCalls(events, defined)
    return toResult.call(this, check, `expected an invalid tool call, but ${check.message}`)
  },
  async toSatisfyJudge(
    this: MatcherState,
    received: unknown,
    rubric: string,
    options: JudgeMatcherOptions = {},
  ) {
    const events = eventsOf(received, 'toSatisfyJudge')
    const task = taskOf(received, 'toSatisfyJudge')
    if (task === undefined) {
      throw new TypeError('toSatisfyJudge: expected a trial carrying its task ({ task, events, result? })')
    }
    const { threshold, ...judge } = options
    const out = await runJudge(
      { task, events, result: resultOf(received, events), env: {} },
      { ...judge, rubric },
    )
    const pass = threshold === undefined ? out.passed : out.score >= threshold
    const cited = out.citations?.length ? ` (cites steps ${out.citations.join(', ')})` : ''
    const want = threshold === undefined ? 'the judge to pass the trial' : `a judge score ≥ ${threshold}`
    const verdict = `judge score ${out.score.toFixed(2)}, ${out.passed ? 'pass' : 'fail'}${cited}: ${out.explanation}`
    return { pass, message: () => `expected ${this.isNot ? 'not ' : ''}${want}; ${verdict}` }
  },
  toCallTool(this: MatcherState, received: unknown, name: string, args?: Record<string, unknown>) {
    const check = checkCallsTool(eventsOf(received, 'toCallTool'), name, args)
    return toResult.call(this, check, `expected the trace not to call tool "${name}", but ${check.message}`)
  },
  toCallToolsInOrder(
    this: MatcherState,
    received: unknown,
    names: string[],
    options?: { mode?: 'exact' | 'subsequence' },
  ) {
    const check = checkCallsToolsInOrder(eventsOf(received, 'toCallToolsInOrder'), names, {
      mode: options?.mode ?? 'subsequence',
    })
    return toResult.call(
      this,
      check,
      `expected the trace not to call ${names.join(' → ')} in order, but it does`,
    )
  },
  toStayWithinBudget(this: MatcherState, received: unknown, budget: Budget) {
    const events = eventsOf(received, 'toStayWithinBudget')
    const check = checkWithinBudget({ events, result: wallTimeOf(received) }, budget)
    return toResult.call(this, check, 'expected the trace to exceed its budget, but it stayed within it')
  },
  toTerminateWith(this: MatcherState, received: unknown, reason: TerminatedBy) {
    const check = checkTerminatedWith(eventsOf(received, 'toTerminateWith'), reason)
    return toResult.call(this, check, `expected the trace not to terminate with ${reason}, but it did`)
  },
  toPassPolicy(this: MatcherState, received: unknown) {
    const check = checkPolicyPasses(eventsOf(received, 'toPassPolicy'))
    return toResult.call(this, check, 'expected a policy FAIL verdict, but every verdict passed')
  },
})
