export {
  agentEvalOps,
  CONFIG_ENV,
  loadConfigSet,
  type AgentEvalOpsOptions,
  type ConfigSet,
  type ProvidedConfig,
  type ProvidedConfigs,
} from './vite-plugin.ts'
export { evalBenchmark, type EvalBenchmarkOptions, type FinishedTrial } from './eval-benchmark.ts'
export type { Gate } from './gate.ts'
