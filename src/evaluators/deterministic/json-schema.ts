import { Ajv, type ValidateFunction } from 'ajv'
import { AgentEvalOpsError, type Evaluator, type JsonValue, type TaskSpec } from '../../core/index.ts'
import { quote, scoreAnswer, type Comparison } from './answer.ts'
import { expectationOfKind } from './expectation.ts'

export type JsonSchemaObject = { [key: string]: JsonValue }

export interface JsonSchemaValidOptions {
  id?: string
  /** Fixed schema; otherwise the task's `{ jsonSchema }` expectation. */
  schema?: JsonSchemaObject
}

// strict: false — real-world schemas carry keywords Ajv does not know (examples, x-*), which must not fail a run.
const ajv = new Ajv({ allErrors: true, strict: false })
// Tasks of one dataset share a handful of schemas: compile each once, keyed by its canonical text.
const compiled = new Map<string, ValidateFunction>()

/** Compiles `schema`, or throws CONFIG_INVALID naming `owner`: a broken schema is the config's fault, not the agent's. */
export function compileJsonSchema(schema: JsonSchemaObject, owner: string): ValidateFunction {
  const key = JSON.stringify(schema)
  const cached = compiled.get(key)
  if (cached) return cached
  try {
    const validate = ajv.compile(schema)
    compiled.set(key, validate)
    return validate
  } catch (e) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `${owner}: invalid JSON Schema: ${(e as Error).message}`, {
      hint: 'Fix the schema (JSON Schema draft-07); check it with any JSON Schema validator.',
      cause: e,
    })
  }
}

/** Ajv's errors as short "path: message" lines; the root is shown as "(root)". */
export function describeSchemaErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
}

export function compareJsonSchema(answer: string, validate: ValidateFunction): Comparison {
  let parsed: unknown
  try {
    parsed = JSON.parse(answer)
  } catch {
    return { passed: false, explanation: `answer is not valid JSON: ${quote(answer)}` }
  }
  if (validate(parsed)) return { passed: true, explanation: 'answer is JSON valid against the schema' }
  return {
    passed: false,
    explanation: `answer does not fit the schema: ${describeSchemaErrors(validate).join('; ')}`,
  }
}

function fromTask(task: TaskSpec, id: string): ValidateFunction {
  const { schema } = expectationOfKind(task, id, ['json_schema'])
  return compileJsonSchema(schema, `task ${JSON.stringify(task.id)}`)
}

/** Passes when the answer is JSON that the schema accepts: the shape is right, whatever the values. */
export function jsonSchemaValid(opts: JsonSchemaValidOptions = {}): Evaluator {
  const id = opts.id ?? 'json-schema'
  const fixed =
    opts.schema === undefined ? undefined : compileJsonSchema(opts.schema, `evaluator ${JSON.stringify(id)}`)
  return {
    id,
    kind: 'deterministic',
    evaluate(view) {
      const validate = fixed ?? fromTask(view.task, id)
      return scoreAnswer(view, (answer) => compareJsonSchema(answer, validate))
    },
  }
}
