export { runTrial, type RunTrialOptions, type TrialRun } from './run-trial'
export { classifyOutcome, type OutcomeInput } from './outcome'
export { isLimitTermination, type LimitTermination } from './limits'
