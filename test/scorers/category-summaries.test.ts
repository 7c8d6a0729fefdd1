import { describe, expect, it } from 'vitest'
import { makeTrials } from '../bundles/fixtures.ts'
import { DEFAULT_SUMMARY_SETTINGS } from '../../src/scorers/index.ts'
import { groupByTask } from '../../src/scorers/summary/task-groups.ts'
import { categorySummaries } from '../../src/scorers/summary/task-table.ts'

/** How many times arrays are iterated (spread, for…of) while `work` runs: a count, not a time. */
function arrayIterations<T>(work: () => T): { value: T; iterations: number } {
  const original = Object.getOwnPropertyDescriptor(Array.prototype, Symbol.iterator)!
  const values = Array.prototype.values
  let iterations = 0
  Object.defineProperty(Array.prototype, Symbol.iterator, {
    ...original,
    value: function (this: unknown[]) {
      iterations++
      return values.call(this)
    },
  })
  try {
    return { value: work(), iterations }
  } finally {
    Object.defineProperty(Array.prototype, Symbol.iterator, original)
  }
}

describe('categorySummaries at the scale of a 100,000-task run', () => {
  it('does not copy the members of a category once per task (it was quadratic in the tasks)', () => {
    const tasks = (n: number) => Array.from({ length: n }, (_, i) => `task-${i}`)
    const small = groupByTask(makeTrials({ tasks: tasks(200), trials: 1 }))
    const large = groupByTask(makeTrials({ tasks: tasks(2000), trials: 1 }))
    const a = arrayIterations(() => categorySummaries(small, DEFAULT_SUMMARY_SETTINGS))
    const b = arrayIterations(() => categorySummaries(large, DEFAULT_SUMMARY_SETTINGS))
    // The fixture's two categories hold every task: what is iterated must not grow with the tasks.
    expect(b.iterations).toBe(a.iterations)
    expect(b.value.map((c) => [c.category, c.tasks])).toEqual([
      ['arithmetic', 1],
      ['tools', 1999],
    ])
  })
})
