/**
 * A column of numbers a fold appends to, one per task or per trial, that its figure reads back whole once, at the
 * end: the inputs of the exact statistics (the bootstrap resamples every task's value, a percentile needs every
 * trial's). Held in memory, or in a file a long run's seal writes, so that only the column being computed is.
 */
export interface NumberColumn {
  push(value: number): void
  readonly length: number
  /** Every value pushed, in order; the same numbers, bit for bit. */
  values(): readonly number[]
}

/** Where a fold's columns live. */
export interface NumberColumns {
  column(): NumberColumn
}

/** Columns as arrays in memory. */
export const heldColumns: NumberColumns = {
  column: () => {
    const items: number[] = []
    return {
      push: (value) => void items.push(value),
      get length() {
        return items.length
      },
      values: () => items,
    }
  },
}
