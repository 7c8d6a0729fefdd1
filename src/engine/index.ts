export { runTrial, type RunTrialOptions, type TrialRun } from './run-trial.ts'
export { classifyOutcome, type OutcomeInput } from './outcome.ts'
export { isLimitTermination, type LimitTermination } from './limits.ts'
