export { exactMatch, type ExactMatchOptions } from './exact-match.ts'
export { contains, type ContainsOptions } from './contains.ts'
export { regexMatch, type RegexMatchOptions } from './regex-match.ts'
export { jsonEqual, type JsonEqualOptions } from './json-equal.ts'
export { matchesExpected, type MatchesExpectedOptions } from './matches-expected.ts'
export { readExpectation, type Expectation } from './expectation.ts'
export { numericMatch, extractNumber, type NumericMatchOptions, type NumericTolerance } from './numeric.ts'
export {
  jsonSchemaValid,
  describeSchemaErrors,
  type JsonSchemaValidOptions,
  type JsonSchemaObject,
} from './json-schema.ts'
export { predicate, type PredicateOptions, type PredicateResult } from './predicate.ts'
