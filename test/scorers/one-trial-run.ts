import type { TrialRecord } from '../../src/core/index.ts'
import { scoredTrial } from '../support/trials.ts'

/** `n` tasks with one trial each, scored by `exact`; the tasks listed in `failing` fail. */
export function oneTrialRun(
  n: number,
  failing: ReadonlySet<number> = new Set(),
  benchmark = 'toy',
): TrialRecord[] {
  return Array.from({ length: n }, (_, i) =>
    scoredTrial({
      taskId: `t${String(i).padStart(3, '0')}`,
      passed: !failing.has(i),
      benchmark,
      named: { exact: failing.has(i) ? 0 : 1 },
    }),
  )
}
