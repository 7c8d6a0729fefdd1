import type { TrialReducer } from '../../core/index.ts'

/** One value per task from its trials' values (never empty). */
export function reduceTrials(values: readonly number[], reducer: TrialReducer): number {
  if (values.length === 0) throw new RangeError('reduceTrials: a task with no values has nothing to reduce')
  switch (reducer) {
    case 'mean':
      return values.reduce((a, b) => a + b, 0) / values.length
    case 'max':
      return extreme(values, Math.max)
    case 'min':
      return extreme(values, Math.min)
    case 'median': {
      const sorted = [...values].sort((a, b) => a - b)
      const mid = sorted.length >> 1
      return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
    }
  }
}

/**
 * Math.max/min over the values one at a time: spreading them as arguments throws past the engine's argument limit
 * (about 120,000), which a task's trials or a run's usage figures can reach.
 */
export function extreme(values: readonly number[], pick: (a: number, b: number) => number): number {
  let result = values[0]!
  for (let i = 1; i < values.length; i++) result = pick(result, values[i]!)
  return result
}
