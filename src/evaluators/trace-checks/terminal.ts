import type { TerminatedBy, TraceEvent } from '../../core/index.ts'
import { formatSteps, ofKind, type CheckResult } from './result.ts'

/** Passes when the trial's single `agent.terminal` event says it ended with `reason`. */
export function checkTerminatedWith(events: readonly TraceEvent[], reason: TerminatedBy): CheckResult {
  const terminals = ofKind(events, 'agent.terminal')
  const [terminal] = terminals
  if (terminal === undefined) {
    return {
      pass: false,
      message: `expected the trial to end with "${reason}", but the trace has no agent.terminal event`,
      steps: [],
    }
  }
  if (terminals.length > 1) {
    // A trace that ends twice is corrupt; trusting either event would hide that.
    const steps = terminals.map((e) => e.step)
    return {
      pass: false,
      message: `the trace has ${terminals.length} agent.terminal events, at ${formatSteps(steps)}`,
      steps,
    }
  }
  const got = terminal.payload.terminatedBy
  const error = terminal.payload.error ? ` (error: ${terminal.payload.error})` : ''
  return got === reason
    ? {
        pass: true,
        message: `the trial ended with "${got}" at step ${terminal.step}`,
        steps: [terminal.step],
      }
    : {
        pass: false,
        message: `expected the trial to end with "${reason}", but it ended with "${got}" at step ${terminal.step}${error}`,
        steps: [terminal.step],
      }
}
