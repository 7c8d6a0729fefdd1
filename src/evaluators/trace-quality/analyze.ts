import type { EvaluatorFinding, TraceEvent } from '../../core/index.ts'
import { detectDeadEnds } from './dead-ends.ts'
import { detectHallucinations } from './hallucinations.ts'
import { detectCycles, detectRepeats } from './loops.ts'
import { buildModel, toFinding, type Detected } from './model.ts'
import {
  resolveOptions,
  TRACE_QUALITY_FINDING_TYPES,
  type ResolvedOptions,
  type TraceQualityOptions,
} from './options.ts'
import { detectRedundant } from './redundant.ts'
import { detectRetries } from './retries.ts'

export interface TraceQualityReport {
  /** In [0, 1]; see scoreOf. */
  score: number
  /** No finding of a type in `failOn`. */
  passed: boolean
  /** Ordered by their first cited step. */
  findings: EvaluatorFinding[]
  toolCalls: number
}

/**
 * score = (1 − wasted / toolCalls) × 0.5^hallucinations, and 1 × 0.5^hallucinations without tool calls.
 *
 * `wasted` counts distinct tool calls a finding shows added nothing: every repeat after the first (repeated_call),
 * every call after a cycle's first pass, the retry (retry_without_change), the repeated call (redundant_call), the
 * call whose result was ignored (dead_end). It can not exceed the number of calls, so the base stays in [0, 1].
 * A hallucinated tool result is a different kind of fault (the agent misreports rather than wastes), so each one
 * halves the score instead: any hallucination caps it at 0.5.
 */
function scoreOf(detected: readonly Detected[], toolCalls: number): number {
  const wasted = new Set<number>()
  let hallucinations = 0
  for (const d of detected) {
    if (d.type === 'hallucinated_tool_result') hallucinations++
    for (const call of d.wastedCalls) wasted.add(call)
  }
  const base = toolCalls === 0 ? 1 : Math.max(0, 1 - wasted.size / toolCalls)
  return base * 0.5 ** hallucinations
}

const TYPE_ORDER = new Map<string, number>(TRACE_QUALITY_FINDING_TYPES.map((t, i) => [t, i]))

// Detectors cite steps in ascending order, so the first citation is the earliest.
const firstStep = (d: Detected): number => d.citations[0] ?? Infinity

/**
 * Every detector over one model of the trace. Loop-like findings are claimed in order of how much they explain,
 * and a call blamed by one is not blamed again by the next: cycle, then repeated_call, then retry_without_change,
 * then redundant_call.
 */
export function analyzeResolved(events: readonly TraceEvent[], opts: ResolvedOptions): TraceQualityReport {
  const model = buildModel(events)
  const cycles = detectCycles(model, opts)
  const repeats = detectRepeats(model, opts, cycles.covered)
  const loops = new Set([...cycles.covered, ...repeats.covered])
  const retries = detectRetries(model, loops)
  for (const index of retries.covered) loops.add(index)
  const detected = [
    ...cycles.detected,
    ...repeats.detected,
    ...retries.detected,
    ...detectRedundant(model, opts, loops),
    ...detectDeadEnds(model),
    ...detectHallucinations(model),
  ]
  const ordered = detected
    .map((d, i) => ({ d, i, first: firstStep(d), type: TYPE_ORDER.get(d.type)! }))
    .sort((a, b) => a.first - b.first || a.type - b.type || a.i - b.i)
    .map(({ d }) => d)
  return {
    score: scoreOf(detected, model.callCount),
    passed: !detected.some((d) => opts.failOn.has(d.type)),
    findings: ordered.map(toFinding),
    toolCalls: model.callCount,
  }
}

/**
 * Judges how the agent worked, from its trace alone: loops, cycles, redundant calls, unchanged retries, ignored
 * results and tool outputs that never happened. Linear in the trace's length (O(events · maxCycleLength)).
 * Throws CONFIG_INVALID on bad options.
 */
export function analyzeTraceQuality(
  events: readonly TraceEvent[],
  options: TraceQualityOptions = {},
): TraceQualityReport {
  return analyzeResolved(events, resolveOptions(options, 'analyzeTraceQuality'))
}
