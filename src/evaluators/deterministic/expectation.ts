import { AgentEvalOpsError, type JsonValue, type TaskSpec } from '../../core/index.ts'

/**
 * The shapes `task.expected` may take: a plain string is an exact answer, a plain number a numeric one;
 * `{ contains }`, `{ regex, flags? }`, `{ json }`, `{ number, tolerance?, relativeTolerance? }` and
 * `{ jsonSchema }` say how else to match. One parser, so every evaluator reads a task the same way.
 */
export type Expectation =
  | { kind: 'exact'; value: string }
  | { kind: 'contains'; value: string }
  | { kind: 'regex'; pattern: string; flags: string }
  | { kind: 'json'; value: JsonValue }
  | { kind: 'number'; expected: number; tolerance?: number; relativeTolerance?: number }
  | { kind: 'json_schema'; schema: { [key: string]: JsonValue } }

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function configError(task: TaskSpec, message: string): AgentEvalOpsError {
  return new AgentEvalOpsError('CONFIG_INVALID', `task ${JSON.stringify(task.id)}: ${message}`, {
    hint: 'Give task.expected as a string, a number, { contains }, { regex, flags? }, { json }, { number, tolerance? } or { jsonSchema }.',
  })
}

/** Returns undefined when the shape is not one we know, so callers can fall back or fail with their own words. */
export function parseExpected(expected: JsonValue | undefined): Expectation | undefined {
  if (typeof expected === 'string') return { kind: 'exact', value: expected }
  if (typeof expected === 'number') return { kind: 'number', expected }
  if (!isObject(expected)) return undefined
  if (typeof expected.contains === 'string') return { kind: 'contains', value: expected.contains }
  if (typeof expected.regex === 'string') {
    const flags = typeof expected.flags === 'string' ? expected.flags : ''
    return { kind: 'regex', pattern: expected.regex, flags }
  }
  if ('json' in expected) return { kind: 'json', value: expected.json ?? null }
  if (typeof expected.number === 'number') {
    const { tolerance, relativeTolerance } = expected
    return {
      kind: 'number',
      expected: expected.number,
      ...(typeof tolerance === 'number' ? { tolerance } : {}),
      ...(typeof relativeTolerance === 'number' ? { relativeTolerance } : {}),
    }
  }
  if (isObject(expected.jsonSchema)) return { kind: 'json_schema', schema: expected.jsonSchema }
  return undefined
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
