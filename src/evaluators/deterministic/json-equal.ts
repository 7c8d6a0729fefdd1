import {
  AgentEvalOpsError,
  compareJson,
  type Evaluator,
  type JsonValue,
  type TaskSpec,
} from '../../core/index.ts'
import { scoreAnswer } from './answer.ts'
import { parseExpected, requireExpected } from './expectation.ts'

export interface JsonEqualOptions {
  id?: string
  /** Fixed expected value; otherwise taken from the task (see `fromTask`). */
  expected?: JsonValue
}

/**
 * `{ json }` is unwrapped; a string is JSON text (datasets often store expected output that way); any other value is
 * itself the expected JSON, so datasets need not wrap structured answers.
 */
function fromTask(task: TaskSpec): JsonValue {
  const expected = requireExpected(task)
  const expectation = parseExpected(expected)
  if (expectation?.kind === 'json') return expectation.value
  if (typeof expected !== 'string') return expected
  try {
    return JSON.parse(expected) as JsonValue
  } catch (e) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `task ${JSON.stringify(task.id)}: expected is not JSON text`,
      {
        hint: 'Give the expected value as { json: value }, or as a string holding valid JSON.',
        cause: e,
      },
    )
  }
}

export function jsonEqual(opts: JsonEqualOptions = {}): Evaluator {
  const fixed = opts.expected
  return {
    id: opts.id ?? 'json-equal',
    kind: 'deterministic',
    evaluate(view) {
      const expected = fixed !== undefined ? fixed : fromTask(view.task)
      return scoreAnswer(view, (answer) => compareJson(answer, expected))
    },
  }
}
