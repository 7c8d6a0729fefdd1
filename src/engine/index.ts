export { runTrial, type RunTrialOptions, type TrialReuse, type TrialRun } from './run-trial.ts'
export { trialKeys, type TrialKeyInput, type TrialKeys } from './trial-keys.ts'
export { classifyOutcome, type OutcomeInput } from './outcome.ts'
export { isLimitTermination, type LimitTermination } from './limits.ts'
