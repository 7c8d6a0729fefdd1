import type { TrialReducer } from '../../core/index.ts'

/** One value per task from its trials' values (never empty). */
export function reduceTrials(values: readonly number[], reducer: TrialReducer): number {
  if (values.length === 0) throw new RangeError('reduceTrials: a task with no values has nothing to reduce')
  switch (reducer) {
    case 'mean':
      return values.reduce((a, b) => a + b, 0) / values.length
    case 'max':
      return Math.max(...values)
    case 'min':
      return Math.min(...values)
    case 'median': {
      const sorted = [...values].sort((a, b) => a - b)
      const mid = sorted.length >> 1
      return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
    }
  }
}
