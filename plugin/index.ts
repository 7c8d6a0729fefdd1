export { agentEvalOps, type AgentEvalOpsOptions } from './vite-plugin.ts'
export { evalBenchmark, type EvalBenchmarkOptions, type FinishedTrial } from './eval-benchmark.ts'
export type { Gate } from './gate.ts'
