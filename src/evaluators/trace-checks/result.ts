import type { TraceEvent, TraceEventKind, TraceEventOf } from '../../core/index.ts'

/**
 * What every trace check returns. `message` explains the result either way (matchers show it for `.not` too);
 * on failure it names the offending steps, which are also listed in `steps` for citations.
 */
export interface CheckResult {
  pass: boolean
  message: string
  steps: number[]
}

export function ofKind<K extends TraceEventKind>(events: readonly TraceEvent[], kind: K): TraceEventOf<K>[] {
  return events.filter((e): e is TraceEventOf<K> => e.kind === kind)
}

/** "step 3" or "steps 2, 4, 6": messages read naturally whatever the count. */
export function formatSteps(steps: readonly number[]): string {
  return `${steps.length === 1 ? 'step' : 'steps'} ${steps.join(', ')}`
}
