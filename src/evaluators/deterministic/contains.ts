import type { Evaluator } from '../../core'
import { scoreAnswer } from './answer'
import { compareContains } from './compare'
import { expectationOfKind } from './expectation'

export interface ContainsOptions {
  id?: string
  /** Fixed text the answer must contain; otherwise the task's `{ contains }` (or plain string) expectation. */
  expected?: string
  caseInsensitive?: boolean
}

export function contains(opts: ContainsOptions = {}): Evaluator {
  const id = opts.id ?? 'contains'
  return {
    id,
    kind: 'deterministic',
    evaluate(view) {
      const needle = opts.expected ?? expectationOfKind(view.task, id, ['contains', 'exact']).value
      return scoreAnswer(view, (answer) => compareContains(answer, needle, opts))
    },
  }
}
