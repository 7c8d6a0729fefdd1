import * as z from 'zod'
import {
  AgentEvalOpsError,
  JsonValue,
  type EvaluatorFinding,
  type TraceEvent,
  type TraceEventOf,
} from '../../core/index.ts'
import { formatSteps, ofKind } from '../trace-checks/result.ts'
import { argsMatch, validateArgMatchers, type ArgMatcher } from './arg-matchers.ts'
import { citedSteps, countOf, showCall, uniqueSorted, type CheckWithFindings } from './findings.ts'
import { longestOrderedPairing, maximumMatching, type Edge } from './matching.ts'

/**
 * Strict, so a misspelt key (`arguments` for `args`) is a configuration error rather than a reference call that
 * silently accepts any arguments.
 */
export const ReferenceCall = z.strictObject({ tool: z.string().min(1), args: JsonValue.optional() })
/** One call the agent is expected to make; without `args`, any arguments will do. */
export type ReferenceCall = z.infer<typeof ReferenceCall>
export const ReferenceTrajectory = z.array(ReferenceCall)

export const TRAJECTORY_MODES = ['exact', 'unordered', 'contains', 'within'] as const
/**
 * - `exact`: the same calls in the same order, no more, no fewer;
 * - `unordered`: the same calls (as a multiset), in any order;
 * - `contains`: every reference call is made (each by its own call); other calls are free;
 * - `within`: every call made is in the reference (each reference call covers one); reference calls may be skipped.
 */
export type TrajectoryMode = (typeof TRAJECTORY_MODES)[number]

export interface TrajectoryOptions {
  mode: TrajectoryMode
  /** Argument matcher per tool name; tools not listed compare arguments exactly (when the reference gives any). */
  args?: Readonly<Record<string, ArgMatcher>>
}

export type TrajectoryResult = CheckWithFindings & {
  /** Share of the trajectory that matched, in [0, 1]: see `scoreOf` for the formula per mode. */
  score: number
}

type ToolCall = TraceEventOf<'agent.tool_call'>

const MODES_HINT = `Use one of the trajectory modes: ${TRAJECTORY_MODES.join(', ')}.`

/** Throws CONFIG_INVALID for options that could only have come from a typo or untyped configuration. */
export function validateTrajectoryOptions(where: string, options: { mode?: unknown; args?: unknown }): void {
  if (options.mode !== undefined && !(TRAJECTORY_MODES as readonly unknown[]).includes(options.mode)) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${where}: unknown trajectory mode ${JSON.stringify(options.mode)}`,
      { hint: MODES_HINT },
    )
  }
  validateArgMatchers(where, options.args)
}

// A plain lookup would hand a tool named "constructor" or "toString" Object.prototype's function as a matcher.
function matcherFor(options: TrajectoryOptions, tool: string): ArgMatcher | undefined {
  const { args } = options
  return args && Object.prototype.hasOwnProperty.call(args, tool) ? args[tool] : undefined
}

/**
 * The score, in [0, 1], for `matched` pairs between the reference and the calls made:
 * - `exact`: 1 when the sequence matches, else 0 (a sequence is right or it is not);
 * - `unordered`: matched / max(|reference|, |calls|), so both missing and extra calls cost;
 * - `contains`: matched / |reference| (extra calls are allowed, so only the reference counts);
 * - `within`: matched / |calls| (skipped reference calls are allowed, so only the calls made count).
 * An empty denominator means nothing was asked for and nothing is wrong: 1.
 */
function scoreOf(mode: TrajectoryMode, pass: boolean, matched: number, references: number, calls: number) {
  if (mode === 'exact') return pass ? 1 : 0
  const denominator =
    mode === 'unordered' ? Math.max(references, calls) : mode === 'contains' ? references : calls
  return denominator === 0 ? 1 : matched / denominator
}

interface Context {
  reference: readonly ReferenceCall[]
  calls: readonly ToolCall[]
  edge: Edge
}

const MAX_CLOSEST = 3

/**
 * A reference call nobody made. The closest calls are the unpartnered ones to the same tool: most often the agent
 * made the call with other arguments, and those steps are where to look.
 */
function missing(ctx: Context, refIndex: number, unpartnered: readonly number[]): EvaluatorFinding {
  const ref = ctx.reference[refIndex]!
  const closest = unpartnered
    .map((i) => ctx.calls[i]!)
    .filter((c) => c.payload.tool === ref.tool)
    .slice(0, MAX_CLOSEST)
  const near = closest.length
    ? ` (closest: ${closest.map((c) => `${showCall(c.payload.tool, c.payload.args)} at step ${c.step}`).join(', ')})`
    : ''
  return {
    type: 'missing_call',
    message: `missing reference call #${refIndex + 1} ${showCall(ref.tool, ref.args)}${near}`,
    citations: closest.map((c) => c.step),
  }
}

function unexpected(call: ToolCall): EvaluatorFinding {
  return {
    type: 'unexpected_call',
    message: `unexpected call ${showCall(call.payload.tool, call.payload.args)} at step ${call.step}`,
    citations: [call.step],
  }
}

/** "call #2 expected X but got Y at step 4": the reference and the call made in its place. */
function inPlaceOf(ctx: Context, type: string, refIndex: number, callIndex: number): EvaluatorFinding {
  const ref = ctx.reference[refIndex]!
  const call = ctx.calls[callIndex]!
  const expected = showCall(ref.tool, ref.args)
  const got = showCall(call.payload.tool, call.payload.args)
  return {
    type,
    message: `call #${refIndex + 1} expected ${expected} but got ${got} at step ${call.step}`,
    citations: [call.step],
  }
}

interface Outcome {
  findings: EvaluatorFinding[]
  /** Indexes of the calls paired with a reference call. */
  matchedCalls: number[]
}

/**
 * `exact` holds only when every position matches, but a report of position-by-position differences would blame
 * every call after one inserted call. So the findings come from an alignment: the longest in-order pairing first
 * (those calls are fine); then reference calls made at another position (`out_of_order`); then, between the same
 * aligned calls, a call to the right tool with other arguments (`argument_mismatch`) or a call in place of another
 * (`unexpected_call`, naming what was expected there: one finding, not a missing and an extra one); what is left is
 * missing or unexpected.
 */
function checkExact(ctx: Context): Outcome {
  const { reference, calls, edge } = ctx
  const anchors = longestOrderedPairing(reference.length, calls.length, edge)
  if (anchors.length === reference.length && anchors.length === calls.length) {
    return { findings: [], matchedCalls: anchors.map(([, c]) => c) }
  }

  const anchoredRefs = new Set(anchors.map(([r]) => r))
  const anchoredCalls = new Set(anchors.map(([, c]) => c))
  const refsLeft = reference.map((_, i) => i).filter((i) => !anchoredRefs.has(i))
  const callsLeft = calls.map((_, i) => i).filter((i) => !anchoredCalls.has(i))

  // Each finding sorts by the call position it concerns, so the message reads along the trace.
  const found: { at: number; finding: EvaluatorFinding }[] = []
  const moved = maximumMatching(refsLeft, callsLeft, edge)
  for (const [r, c] of moved) {
    const call = calls[c]!
    const ref = reference[r]!
    const when = c > r ? 'later' : c < r ? 'earlier' : 'out of sequence'
    const message = `call #${r + 1} expected ${showCall(ref.tool, ref.args)} but it came ${when}, as call #${c + 1} at step ${call.step}`
    found.push({ at: c, finding: { type: 'out_of_order', message, citations: [call.step] } })
  }
  const movedCalls = new Set(moved.values())
  let refs = refsLeft.filter((r) => !moved.has(r))
  let rest = callsLeft.filter((c) => !movedCalls.has(c))

  // Gap g lies between anchors g - 1 and g: a reference call and a call in the same gap stand in each other's place.
  const gapOf = (index: number, side: 0 | 1) => anchors.filter((a) => a[side] < index).length
  const paired = new Set<number>()
  const pairInGaps = (type: string, fits: (r: number, c: number) => boolean) => {
    refs = refs.filter((r) => {
      const c = rest.find((c) => !paired.has(c) && gapOf(c, 1) === gapOf(r, 0) && fits(r, c))
      if (c === undefined) return true
      paired.add(c)
      found.push({ at: c, finding: inPlaceOf(ctx, type, r, c) })
      return false
    })
    rest = rest.filter((c) => !paired.has(c))
  }
  pairInGaps('argument_mismatch', (r, c) => reference[r]!.tool === calls[c]!.payload.tool)
  pairInGaps('unexpected_call', () => true)

  for (const r of refs) {
    const gap = gapOf(r, 0)
    // Just after the aligned call before it: where the missing call should have been.
    const at = gap === 0 ? -0.5 : anchors[gap - 1]![1] + 0.5
    found.push({ at, finding: missing(ctx, r, rest) })
  }
  for (const c of rest) found.push({ at: c, finding: unexpected(calls[c]!) })

  found.sort((a, b) => a.at - b.at)
  return { findings: found.map((f) => f.finding), matchedCalls: anchors.map(([, c]) => c) }
}

function checkMultiset(ctx: Context, mode: Exclude<TrajectoryMode, 'exact'>): Outcome {
  const { reference, calls, edge } = ctx
  const pairs = maximumMatching(
    reference.map((_, i) => i),
    calls.map((_, i) => i),
    edge,
  )
  const matchedCalls = [...pairs.values()]
  const partnered = new Set(matchedCalls)
  const unpartnered = calls.map((_, i) => i).filter((i) => !partnered.has(i))
  const findings: EvaluatorFinding[] = []
  if (mode !== 'within') {
    reference.forEach((_, r) => {
      if (!pairs.has(r)) findings.push(missing(ctx, r, unpartnered))
    })
  }
  if (mode !== 'contains') findings.push(...unpartnered.map((i) => unexpected(calls[i]!)))
  return { findings, matchedCalls }
}

function passMessage(mode: TrajectoryMode, references: number, calls: number, steps: number[]): string {
  const at = steps.length ? ` (${formatSteps(steps)})` : ''
  switch (mode) {
    case 'exact':
      return calls === 0
        ? 'no tool calls, as in the reference'
        : `the ${countOf(calls, 'call')} match the reference in order${at}`
    case 'unordered':
      return calls === 0
        ? 'no tool calls, as in the reference'
        : `the ${countOf(calls, 'call')} match the reference in some order${at}`
    case 'contains':
      return references === 0
        ? 'the reference is empty: no call was required'
        : `all ${countOf(references, 'reference call')} were made${at}`
    case 'within':
      return calls === 0
        ? 'no tool calls were made'
        : `all ${countOf(calls, 'call')} are in the reference${at}`
  }
}

/**
 * Compares the trace's tool calls with a reference trajectory. Every finding says where to look; on a pass, `steps`
 * are the calls that matched the reference.
 */
export function checkTrajectory(
  events: readonly TraceEvent[],
  reference: readonly ReferenceCall[],
  options: TrajectoryOptions,
): TrajectoryResult {
  validateTrajectoryOptions('checkTrajectory', options)
  const calls = ofKind(events, 'agent.tool_call')
  // The matchers are user code and may be slow: ask each pair once.
  const fits = reference.map((ref) => {
    const matcher = matcherFor(options, ref.tool)
    return calls.map((c) => c.payload.tool === ref.tool && argsMatch(matcher, c.payload.args, ref.args))
  })
  const ctx: Context = { reference, calls, edge: (r, c) => fits[r]![c]! }
  const { mode } = options
  const { findings, matchedCalls } = mode === 'exact' ? checkExact(ctx) : checkMultiset(ctx, mode)

  const pass = findings.length === 0
  const score = scoreOf(mode, pass, matchedCalls.length, reference.length, calls.length)
  if (pass) {
    const steps = uniqueSorted(matchedCalls.map((i) => calls[i]!.step))
    return {
      pass,
      score,
      message: `${mode}: ${passMessage(mode, reference.length, calls.length, steps)}`,
      steps,
      findings,
    }
  }
  return {
    pass,
    score,
    message: `${mode}: ${findings.map((f) => f.message).join('; ')}`,
    steps: citedSteps(findings),
    findings: findings.map((f) => ({ ...f, message: `${mode}: ${f.message}` })),
  }
}
