import {
  AgentEvalOpsError,
  parseExpected,
  type Expectation,
  type JsonValue,
  type TaskSpec,
} from '../../core/index.ts'

// The shapes of `task.expected` are read in core (answer-match.ts), where the dataset benchmark reads them too.
export { parseExpected, type Expectation }

function configError(task: TaskSpec, message: string): AgentEvalOpsError {
  return new AgentEvalOpsError('CONFIG_INVALID', `task ${JSON.stringify(task.id)}: ${message}`, {
    hint: 'Give task.expected as a string, a number, { contains }, { regex, flags? }, { json }, { number, tolerance? } or { jsonSchema }.',
  })
}

/** The task's expected value; a task without one cannot be scored against it, which is a configuration error. */
export function requireExpected(task: TaskSpec): JsonValue {
  if (task.expected === undefined)
    throw configError(task, 'has no expected value to match the answer against.')
  return task.expected
}

/** The task's expectation, or a CONFIG_INVALID error naming the task when it has none we can use. */
export function readExpectation(task: TaskSpec): Expectation {
  const expectation = parseExpected(requireExpected(task))
  if (!expectation)
    throw configError(task, `has an expected value of unknown shape: ${JSON.stringify(task.expected)}.`)
  return expectation
}

/** For evaluators bound to one kind of match: the task's expectation must be that kind (a plain string also fits). */
export function expectationOfKind<K extends Expectation['kind']>(
  task: TaskSpec,
  evaluatorId: string,
  kinds: readonly K[],
): Extract<Expectation, { kind: K }> {
  const expectation = readExpectation(task)
  if ((kinds as readonly string[]).includes(expectation.kind))
    return expectation as Extract<Expectation, { kind: K }>
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `evaluator ${JSON.stringify(evaluatorId)} cannot use the ${expectation.kind} expectation of task ${JSON.stringify(task.id)}`,
    {
      hint: 'Use matchesExpected(), which follows the shape of task.expected, or pass the expectation in the options.',
    },
  )
}
