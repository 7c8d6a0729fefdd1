import { compareExact, type Evaluator } from '../../core/index.ts'
import { scoreAnswer } from './answer.ts'
import { expectationOfKind } from './expectation.ts'

export interface ExactMatchOptions {
  id?: string
  /** Fixed expected answer; otherwise the task's `expected` string. */
  expected?: string
  caseInsensitive?: boolean
  /** Trim surrounding whitespace of both sides before comparing (default true). */
  trim?: boolean
}

export function exactMatch(opts: ExactMatchOptions = {}): Evaluator {
  const id = opts.id ?? 'exact-match'
  return {
    id,
    kind: 'deterministic',
    evaluate(view) {
      const expected = opts.expected ?? expectationOfKind(view.task, id, ['exact']).value
      return scoreAnswer(view, (answer) => compareExact(answer, expected, opts))
    },
  }
}
