import { expect } from 'vitest'
import type { MatcherState } from 'vitest'
import type { TerminatedBy, TraceEvent } from '../src/core/index.ts'
import {
  checkCallsTool,
  checkCallsToolsInOrder,
  checkPolicyPasses,
  checkTerminatedWith,
  checkWithinBudget,
  findLoops,
} from '../src/evaluators/index.ts'

/** What the trace matchers accept: the events of one trial, or anything that carries them. */
export type TraceLike = readonly TraceEvent[] | { events: readonly TraceEvent[] }

export interface Budget {
  tokens?: number
  costUsd?: number
  seconds?: number
  turns?: number
}

/** Synchronous on purpose: an un-awaited async matcher passes silently in Vitest. */
export interface TraceMatchers<R = unknown> {
  toHaveNoLoops: (options?: { minRepeats?: number }) => R
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

/** Adapts a trace check to a matcher result; `notMessage` explains a pass when the assertion was negated. */
function toResult(this: MatcherState, check: Check, notMessage: string) {
  return { pass: check.pass, message: () => (this.isNot ? notMessage : check.message) }
}

expect.extend({
  toHaveNoLoops(this: MatcherState, received: unknown, options?: { minRepeats?: number }) {
    const check = findLoops(eventsOf(received, 'toHaveNoLoops'), options ?? {})
    return toResult.call(this, check, 'expected the trace to contain a tool-call loop, but it has none')
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
