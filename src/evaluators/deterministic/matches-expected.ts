import {
  compareContains,
  compareExact,
  compareJson,
  compareNumber,
  compareRegex,
  compileRegex,
  type Comparison,
  type Evaluator,
} from '../../core/index.ts'
import { scoreAnswer } from './answer.ts'
import { readExpectation, type Expectation } from './expectation.ts'
import { compileJsonSchema } from '../json-schema.ts'
import { compareJsonSchema, SCHEMA_HINT } from './json-schema.ts'

export interface MatchesExpectedOptions {
  id?: string
  /** Applies to exact and contains matches. */
  caseInsensitive?: boolean
}

function compare(answer: string, expectation: Expectation, opts: MatchesExpectedOptions): Comparison {
  switch (expectation.kind) {
    case 'exact':
      return compareExact(answer, expectation.value, opts)
    case 'contains':
      return compareContains(answer, expectation.value, opts)
    case 'regex':
      return compareRegex(answer, compileRegex(expectation.pattern, expectation.flags))
    case 'json':
      return compareJson(answer, expectation.value)
    case 'number':
      return compareNumber(answer, expectation.expected, expectation)
    case 'json_schema':
      return compareJsonSchema(
        answer,
        compileJsonSchema(expectation.schema, 'task.expected.jsonSchema: invalid JSON Schema', SCHEMA_HINT),
      )
  }
}

/** One evaluator for a mixed dataset: each task's `expected` shape decides how its answer is matched. */
export function matchesExpected(opts: MatchesExpectedOptions = {}): Evaluator {
  return {
    id: opts.id ?? 'matches-expected',
    kind: 'deterministic',
    evaluate(view) {
      // Read before scoring, so a task without a usable expectation is a config error even when there is no answer.
      const expectation = readExpectation(view.task)
      return scoreAnswer(view, (answer) => compare(answer, expectation, opts))
    },
  }
}
