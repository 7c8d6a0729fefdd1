import type { ValidateFunction } from 'ajv'
import {
  parseJsonAnswer,
  type Comparison,
  type Evaluator,
  type JsonValue,
  type TaskSpec,
} from '../../core/index.ts'
import { compileJsonSchema } from '../json-schema.ts'
import { scoreAnswer } from './answer.ts'
import { expectationOfKind } from './expectation.ts'

export type JsonSchemaObject = { [key: string]: JsonValue }

export interface JsonSchemaValidOptions {
  id?: string
  /** Fixed schema; otherwise the task's `{ jsonSchema }` expectation. */
  schema?: JsonSchemaObject
}

export const SCHEMA_HINT =
  'Fix the schema: it must be a valid JSON Schema (draft-07, or 2020-12 when its $schema says so).'

/** Ajv's errors as short "path: message" lines; the root is shown as "(root)". */
export function describeSchemaErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
}

export function compareJsonSchema(answer: string, validate: ValidateFunction): Comparison {
  const json = parseJsonAnswer(answer)
  if (!json.ok) return json.failed
  const parsed = json.value
  if (validate(parsed)) return { passed: true, explanation: 'answer is JSON valid against the schema' }
  return {
    passed: false,
    explanation: `answer does not fit the schema: ${describeSchemaErrors(validate).join('; ')}`,
  }
}

function fromTask(task: TaskSpec, id: string): ValidateFunction {
  const { schema } = expectationOfKind(task, id, ['json_schema'])
  return compileJsonSchema(schema, `task ${JSON.stringify(task.id)}: invalid JSON Schema`, SCHEMA_HINT)
}

/** Passes when the answer is JSON that the schema accepts: the shape is right, whatever the values. */
export function jsonSchemaValid(opts: JsonSchemaValidOptions = {}): Evaluator {
  const id = opts.id ?? 'json-schema'
  const fixed =
    opts.schema === undefined
      ? undefined
      : compileJsonSchema(opts.schema, `evaluator ${JSON.stringify(id)}: invalid JSON Schema`, SCHEMA_HINT)
  return {
    id,
    kind: 'deterministic',
    evaluate(view) {
      const validate = fixed ?? fromTask(view.task, id)
      return scoreAnswer(view, (answer) => compareJsonSchema(answer, validate))
    },
  }
}
