export { callableRunner } from './callable-runner.ts'
export { currentCallableTrial, type CallableTrial } from './trial-scope.ts'
export type {
  CallableAgent,
  CallableContext,
  CallableInput,
  CallableOutput,
  CallableResult,
  CallableRunnerOptions,
  CallableUsage,
  ModelCall,
  ModelCallInfo,
  ModelCallReport,
  RemainingBudget,
  ToolCallOptions,
} from './types.ts'
