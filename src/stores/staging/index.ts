export { readStagedRun, stagedTrialEvents, type StagedRun, type StagedTrial } from './read-staged-run.ts'
export { LogTail, workerLogPaths, type LogLine } from './log-tail.ts'
export { stagedTraces, type StagedTraces } from './staged-traces.ts'
