import { compareRegex, compileRegex, type Evaluator, type TaskSpec } from '../../core/index.ts'
import { scoreAnswer } from './answer.ts'
import { expectationOfKind } from './expectation.ts'

export interface RegexMatchOptions {
  id?: string
  /** Fixed pattern; otherwise the task's `{ regex, flags? }` (or plain string) expectation. */
  pattern?: string | RegExp
  flags?: string
}

export function regexMatch(opts: RegexMatchOptions = {}): Evaluator {
  const id = opts.id ?? 'regex-match'
  // A fixed pattern is compiled now so a typo fails the configuration, not every trial.
  const fixed = opts.pattern === undefined ? undefined : compileRegex(opts.pattern, opts.flags)
  return {
    id,
    kind: 'deterministic',
    evaluate(view) {
      const regex = fixed ?? fromTask(view.task, id)
      return scoreAnswer(view, (answer) => compareRegex(answer, regex))
    },
  }
}

/** A plain-string expectation is taken as the pattern itself. */
function fromTask(task: TaskSpec, id: string): RegExp {
  const expectation = expectationOfKind(task, id, ['regex', 'exact'])
  return expectation.kind === 'regex'
    ? compileRegex(expectation.pattern, expectation.flags)
    : compileRegex(expectation.value)
}
