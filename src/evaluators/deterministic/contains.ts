import { compareContains, type Evaluator } from '../../core/index.ts'
import { scoreAnswer } from './answer.ts'
import { expectationOfKind } from './expectation.ts'

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
