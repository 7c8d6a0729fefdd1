export { repoBenchmark } from './adapter.ts'
export { applyGoldPatch, MAX_FINDINGS, REPO_FINDING_TYPES, type RepoFindingType } from './grade.ts'
export { readInstances, RepoExpected, RepoInput, RepoInstance, type InstancesFile } from './instances.ts'
export {
  DEFAULT_TEST_TIMEOUT_SECONDS,
  REPO_BENCHMARK_VERSION,
  RepoOptions,
  type RepoOptionsInput,
} from './options.ts'
export {
  parseTestOutput,
  TEST_OUTPUT_FORMATS,
  type TestOutputFormat,
  type TestStatus,
} from './test-output.ts'
export { type RepoEnv } from './worktree.ts'
