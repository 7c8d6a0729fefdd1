import type { TrialRecord } from '../src/core/index.ts'
import { explainTrial } from './gate.ts'

/** Failing trials a pass-rate gate explains in its message; the bundle's report has every one. */
export const MAX_EXPLAINED = 20

/**
 * What the gates that run after a benchmark's trials need of them, kept as each trial finishes instead of its whole
 * record: counts and the first failures' explanations for the pass-rate gate; the records themselves only when there
 * is a baseline gate, whose comparison (compareToBaseline) takes scored trials.
 */
export class FinishedTrials {
  count = 0
  passed = 0
  /** Explanations of the first MAX_EXPLAINED trials that did not pass, in the order they finished. */
  readonly explained: string[] = []
  /** The records, for the baseline comparison; undefined when there is no baseline gate. */
  readonly compared: TrialRecord[] | undefined

  constructor(options: { compared: boolean }) {
    this.compared = options.compared ? [] : undefined
  }

  add(record: TrialRecord): void {
    this.count++
    if (record.passed) this.passed++
    else if (this.explained.length < MAX_EXPLAINED) this.explained.push(explainTrial(record))
    this.compared?.push(record)
  }

  get passRate(): number {
    return this.count === 0 ? 0 : this.passed / this.count
  }

  /** The failing trials' explanations, and how many more there were. */
  failures(): string {
    const more = this.count - this.passed - this.explained.length
    return [...this.explained, ...(more > 0 ? [`… and ${more} more trials that did not pass`] : [])].join(
      '\n',
    )
  }
}
