import { canonicalJson, type JsonValue, type TraceEvent, type TraceEventOf } from '../../core/index.ts'
import { formatSteps, ofKind, type CheckResult } from './result.ts'

type ToolCall = TraceEventOf<'agent.tool_call'>

/** Every given key must deep-equal the call's argument; keys not given are free. */
function argsMatch(actual: JsonValue, wanted: Record<string, unknown>): boolean {
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
    return Object.keys(wanted).length === 0
  return Object.entries(wanted).every(([key, value]) => canonicalJson(actual[key]) === canonicalJson(value))
}

function describeCalls(calls: readonly ToolCall[]): string {
  if (calls.length === 0) return 'no tool calls'
  return calls.map((c) => `${c.payload.tool} (step ${c.step})`).join(', ')
}

/** Passes when `name` is called at least once (with arguments matching `args`, when given). */
export function checkCallsTool(
  events: readonly TraceEvent[],
  name: string,
  args?: Record<string, unknown>,
): CheckResult {
  const calls = ofKind(events, 'agent.tool_call')
  const named = calls.filter((c) => c.payload.tool === name)
  const matching = args ? named.filter((c) => argsMatch(c.payload.args, args)) : named
  const withArgs = args ? ` with arguments matching ${canonicalJson(args)}` : ''

  if (matching.length > 0) {
    const steps = matching.map((c) => c.step)
    return { pass: true, message: `tool "${name}" called${withArgs} at ${formatSteps(steps)}`, steps }
  }
  if (named.length > 0) {
    // Called, but never as asked: the steps of the near misses are what the reader needs to look at.
    const steps = named.map((c) => c.step)
    const got = named.map((c) => `${canonicalJson(c.payload.args)} (step ${c.step})`).join(', ')
    return {
      pass: false,
      message: `tool "${name}" was called at ${formatSteps(steps)} but never${withArgs}; got ${got}`,
      steps,
    }
  }
  return {
    pass: false,
    message: `tool "${name}" was never called; tool calls: ${describeCalls(calls)}`,
    steps: [],
  }
}

export interface ToolOrderOptions {
  /** `exact`: the tool-call sequence is exactly `names`; `subsequence` (default): in this order, others allowed. */
  mode?: 'exact' | 'subsequence'
}

function checkExact(calls: readonly ToolCall[], names: readonly string[]): CheckResult {
  const seen = `tool calls: ${describeCalls(calls)}`
  for (let i = 0; i < Math.max(calls.length, names.length); i++) {
    const call = calls[i]
    const want = names[i]
    if (call === undefined) {
      return {
        pass: false,
        message: `expected call #${i + 1} to be "${want}", but the trace ends there; ${seen}`,
        steps: [],
      }
    }
    if (want === undefined) {
      const steps = calls.slice(i).map((c) => c.step)
      return {
        pass: false,
        message: `expected ${names.length} tool calls, got extra calls at ${formatSteps(steps)}; ${seen}`,
        steps,
      }
    }
    if (call.payload.tool !== want) {
      return {
        pass: false,
        message: `expected call #${i + 1} to be "${want}", got "${call.payload.tool}" at step ${call.step}; ${seen}`,
        steps: [call.step],
      }
    }
  }
  return {
    pass: true,
    message: `tool calls are exactly ${names.join(' → ') || '(none)'}`,
    steps: calls.map((c) => c.step),
  }
}

function checkSubsequence(calls: readonly ToolCall[], names: readonly string[]): CheckResult {
  if (names.length === 0) return { pass: true, message: 'no tool calls were required', steps: [] }
  const matched: number[] = []
  let next = 0
  for (const call of calls) {
    if (next < names.length && call.payload.tool === names[next]) {
      matched.push(call.step)
      next++
    }
  }
  if (next === names.length) {
    return {
      pass: true,
      message: `tools called in order ${names.join(' → ')} at ${formatSteps(matched)}`,
      steps: matched,
    }
  }
  const after = matched.length > 0 ? ` after "${names[next - 1]}" at step ${matched.at(-1)}` : ''
  return {
    pass: false,
    message: `expected "${names[next]}" to be called${after}, but it never was; tool calls: ${describeCalls(calls)}`,
    steps: matched.slice(-1),
  }
}

export function checkCallsToolsInOrder(
  events: readonly TraceEvent[],
  names: readonly string[],
  opts: ToolOrderOptions = {},
): CheckResult {
  const calls = ofKind(events, 'agent.tool_call')
  return (opts.mode ?? 'subsequence') === 'exact' ? checkExact(calls, names) : checkSubsequence(calls, names)
}
