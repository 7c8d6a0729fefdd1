export { harborBenchmark } from './adapter.ts'
export {
  DEFAULT_HARBOR_GRADE_TIMEOUT_SECONDS,
  HARBOR_ADAPTER_VERSION,
  HARBOR_BENCHMARK_ID,
  HarborOptions,
  parseHarborOptions,
  type ResolvedHarborOptions,
} from './options.ts'
export {
  DEFAULT_ORACLE_TIMEOUT_SECONDS,
  HARBOR_ORACLE_RUNNER_ID,
  harborNoopRunner,
  harborOracleRunner,
  NOOP_RUNNER_ID,
} from './runners.ts'
export { REWARD_JSON, REWARD_TXT, type VerifierEnv } from './grade.ts'
export { DEFAULT_VERIFIER_TIMEOUT_SECONDS, type HarborExpected } from './task-folder.ts'
export type { HarborEnv } from './workspace.ts'
