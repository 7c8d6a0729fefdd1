export { agentEvalOps, type AgentEvalOpsOptions } from './vite-plugin'
export { evalBenchmark, type EvalBenchmarkOptions, type FinishedTrial } from './eval-benchmark'
export type { Gate } from './gate'
