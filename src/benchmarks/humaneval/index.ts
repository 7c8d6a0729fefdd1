export {
  humanEvalBenchmark,
  expectedOf,
  HumanEvalOptions,
  HUMANEVAL_ADAPTER_VERSION,
  HUMANEVAL_BENCHMARK_ID,
  type HumanEvalExpected,
} from './adapter.ts'
export { executeCheck, resolvePython, type HumanEvalCheck, type HumanEvalCheckStatus } from './execute.ts'
export { checkProgram, completionFrom } from './program.ts'
export { readHumanEval, HumanEvalProblem, type HumanEvalDataset } from './problems.ts'
export { shippedHumanEvalPath } from './shipped.ts'
export { humanEvalEmptyRunner, humanEvalOracleRunner, humanEvalWeakRunner } from './runners.ts'
