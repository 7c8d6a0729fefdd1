import type { EvaluatorFinding, JsonValue, TraceEvent, TraceEventOf } from '../../core/index.ts'
import type { CheckResult } from '../trace-checks/result.ts'
import { Interner } from './interner.ts'
import type { TraceQualityFindingType } from './options.ts'

/** No result / no call, in the index columns below. */
export const NONE = -1

/**
 * What every detector reads: the trace's tool calls and tool results, one column per field (call i's step is
 * `callStep[i]`). Columns of typed arrays rather than an object per call: on a 500k-event trace, hundreds of
 * thousands of small objects that live through the analysis cost more in garbage collection than the analysis
 * itself, and made the time per event grow with the trace.
 */
export interface TraceModel {
  /** The trace in step order. */
  events: readonly TraceEvent[]
  answers: TraceEventOf<'agent.final_answer'>[]
  /** Every tool name that occurs, in a call or a result. */
  tools: ReadonlySet<string>

  callCount: number
  callStep: Float64Array
  callTool: string[]
  /** Interned (tool, args): equal keys mean the same call, whatever the key order of the arguments. Dense from 0. */
  callKey: Int32Array
  /** Number of distinct call keys. */
  distinctCalls: number
  /** Index of the call's result, or NONE. */
  callResult: Int32Array
  /** 1 when a tool result or observation not seen before in the trace arrived for this call (or right after it). */
  callFresh: Uint8Array

  resultCount: number
  resultStep: Float64Array
  resultTool: string[]
  resultValue: JsonValue[]
  resultCallId: (string | undefined)[]
  /** Interned (tool, error or not, result): equal keys mean the same output. */
  resultKey: Int32Array
  /** Index of the call this result answers, or NONE. */
  resultCall: Int32Array
  resultIsError: Uint8Array
  /** 1 when no tool call this result could answer came before it. */
  resultOrphan: Uint8Array
}

/**
 * An error result: `isError`, or a JSON object whose `error` key holds something (APIs often send `error: null`
 * on success, so null, false and "" do not count).
 */
function isErrorResult(payload: TraceEventOf<'agent.tool_result'>['payload']): boolean {
  if (payload.isError === true) return true
  const r = payload.result
  if (r === null || typeof r !== 'object' || Array.isArray(r) || !Object.hasOwn(r, 'error')) return false
  const e = r.error
  return e !== null && e !== false && e !== ''
}

/** Calls of one tool, in order, and how far pairing has got through them. */
interface Pending {
  calls: number[]
  head: number
}

function inStepOrder(events: readonly TraceEvent[]): readonly TraceEvent[] {
  for (let i = 1; i < events.length; i++) {
    if (events[i]!.step < events[i - 1]!.step) return [...events].sort((a, b) => a.step - b.step)
  }
  return events
}

/**
 * One pass over the trace that every detector reads from. Each call's (tool, arguments) and each result is
 * interned exactly once (equal up to object key order, as with canonicalJson), so the detectors compare small
 * integers and stay linear.
 *
 * Pairing a result with its call: by callId when the result has one and the calls before it carry callIds;
 * otherwise the oldest unanswered call of the same tool. A result is an orphan when it has nothing to answer: its
 * callId belongs to no earlier call of that tool (when callIds are in use), or no earlier call of its tool exists.
 * Runners that only put callIds on results are judged by tool, so they are not all flagged.
 */
export function buildModel(input: readonly TraceEvent[]): TraceModel {
  const events = inStepOrder(input)
  let callCount = 0
  let resultCount = 0
  for (const e of events) {
    if (e.kind === 'agent.tool_call') callCount++
    else if (e.kind === 'agent.tool_result') resultCount++
  }
  const tools = new Set<string>()
  const m: TraceModel = {
    events,
    answers: [],
    tools,
    callCount,
    callStep: new Float64Array(callCount),
    callTool: [],
    callKey: new Int32Array(callCount),
    distinctCalls: 0,
    callResult: new Int32Array(callCount).fill(NONE),
    callFresh: new Uint8Array(callCount),
    resultCount,
    resultStep: new Float64Array(resultCount),
    resultTool: [],
    resultValue: [],
    resultCallId: [],
    resultKey: new Int32Array(resultCount),
    resultCall: new Int32Array(resultCount).fill(NONE),
    resultIsError: new Uint8Array(resultCount),
    resultOrphan: new Uint8Array(resultCount),
  }
  const callKeys = new Interner()
  const outputs = new Interner()
  const callIds: (string | undefined)[] = []
  /** Calls with a callId still waiting for their result: small, as results usually follow their calls. */
  const openById = new Map<string, number>()
  /** Results whose callId matched no waiting call: judged once the pass is done (see settleOrphans). */
  const unmatched: number[] = []
  const pending = new Map<string, Pending>()
  let callIdsInUse = false
  let c = 0
  let r = 0

  for (const e of events) {
    switch (e.kind) {
      case 'agent.tool_call': {
        const { tool, callId } = e.payload
        tools.add(tool)
        m.callStep[c] = e.step
        m.callKey[c] = callKeys.intern(tool, e.payload.args)
        // Pushed, not preallocated: `new Array(n)` for a large n is a slow dictionary-mode array in V8.
        m.callTool.push(tool)
        callIds.push(callId)
        if (callId !== undefined) {
          callIdsInUse = true
          openById.set(callId, c)
        }
        const queue = pending.get(tool)
        if (queue) queue.calls.push(c)
        else pending.set(tool, { calls: [c], head: 0 })
        c++
        break
      }
      case 'agent.tool_result': {
        const { tool, callId } = e.payload
        tools.add(tool)
        const isError = isErrorResult(e.payload)
        const known = outputs.size
        // Tool names are never empty, so these tags cannot meet the observations' tag.
        m.resultKey[r] = outputs.intern(isError ? `!${tool}` : tool, e.payload.result)
        const fresh = outputs.size > known
        m.resultStep[r] = e.step
        m.resultTool.push(tool)
        m.resultValue.push(e.payload.result)
        m.resultCallId.push(callId)
        m.resultIsError[r] = isError ? 1 : 0
        let call = NONE
        if (callId !== undefined && callIdsInUse) {
          const open = openById.get(callId)
          if (open !== undefined && m.callTool[open] === tool) {
            call = open
            openById.delete(callId)
          } else unmatched.push(r)
        } else {
          const queue = pending.get(tool)
          if (queue === undefined) m.resultOrphan[r] = 1
          else {
            // The oldest call of the tool still without a result; calls answered by callId meanwhile are skipped.
            while (queue.head < queue.calls.length && call === NONE) {
              const candidate = queue.calls[queue.head++]!
              if (m.callResult[candidate] === NONE) call = candidate
            }
          }
        }
        if (call !== NONE) {
          m.callResult[call] = r
          m.resultCall[r] = call
        }
        const owner = call !== NONE ? call : c - 1
        if (fresh && owner >= 0) m.callFresh[owner] = 1
        r++
        break
      }
      case 'agent.observation': {
        const known = outputs.size
        outputs.intern('', e.payload.text)
        if (outputs.size > known && c > 0) m.callFresh[c - 1] = 1
        break
      }
      case 'agent.final_answer':
        m.answers.push(e)
        break
      default:
        break
    }
  }
  settleOrphans(m, unmatched, callIds)
  m.distinctCalls = callKeys.size
  return m
}

/**
 * A result whose callId matched no waiting call is an orphan unless an earlier call of its tool carries that callId
 * (a second result for one call). Such results are rare, so the index of every callId is built only for them.
 */
function settleOrphans(
  m: TraceModel,
  unmatched: readonly number[],
  callIds: readonly (string | undefined)[],
) {
  if (unmatched.length === 0) return
  const firstStep = new Map<string, number>()
  for (let c = 0; c < m.callCount; c++) {
    const id = callIds[c]
    if (id === undefined) continue
    const key = `${m.callTool[c]}\u0000${id}`
    if (!firstStep.has(key)) firstStep.set(key, m.callStep[c]!)
  }
  for (const r of unmatched) {
    const step = firstStep.get(`${m.resultTool[r]}\u0000${m.resultCallId[r]}`)
    m.resultOrphan[r] = step === undefined || step > m.resultStep[r]! ? 1 : 0
  }
}

/** Internal shape of a finding: the public finding, plus the calls it shows were wasted (for the score). */
export interface Detected {
  type: TraceQualityFindingType
  message: string
  /** Ascending. */
  citations: number[]
  /** Indexes of wasted calls. */
  wastedCalls: number[]
}

/** A detector's findings, and the calls they blame (call indexes), so later detectors do not blame them again. */
export interface Blamed {
  detected: Detected[]
  covered: Set<number>
}

export const ascending = (a: number, b: number) => a - b

export function toFinding(d: Detected): EvaluatorFinding {
  return { type: d.type, message: d.message, citations: d.citations }
}

/** A standalone check's result (for the matchers): `passMessage` when nothing was detected, else the findings. */
export function checkOf(
  detected: readonly Detected[],
  passMessage: string,
): CheckResult & { findings: EvaluatorFinding[] } {
  if (detected.length === 0) return { pass: true, message: passMessage, steps: [], findings: [] }
  return {
    pass: false,
    message: detected.map((d) => d.message).join('; '),
    steps: [...new Set(detected.flatMap((d) => d.citations))].sort(ascending),
    findings: detected.map(toFinding),
  }
}

/** Steps of the given calls. */
export function stepsOf(m: TraceModel, calls: readonly number[]): number[] {
  return calls.map((c) => m.callStep[c]!)
}
