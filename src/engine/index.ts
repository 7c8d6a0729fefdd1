export { runTrial, type RunTrialOptions, type TrialReuse, type TrialRun } from './run-trial.ts'
export {
  agentKeyChanges,
  benchmarkKeys,
  scoreKeyChanges,
  trialKeys,
  type OwnKeyInput,
  type SharedKeyInput,
  type TrialKeyInput,
  type TrialKeys,
} from './trial-keys.ts'
export { classifyOutcome, type OutcomeInput } from './outcome.ts'
export { isLimitTermination, tighterLimits, trialLimits, type LimitTermination } from './limits.ts'
export {
  commandEnv,
  runCommand,
  MAX_TAIL_BYTES,
  PASSED_ENV,
  type CommandResult,
  type RunCommandOptions,
} from './run-command.ts'
export {
  DEFAULT_GRADE_TIMEOUT_SECONDS,
  folderArtifacts,
  gradeEvaluatorId,
  tempArtifacts,
  type GradeFn,
  type TrialArtifacts,
} from './grade.ts'
export { isProcessAlive, removeStale, scratchRoot } from './scratch.ts'
