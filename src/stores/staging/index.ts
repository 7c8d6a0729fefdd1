export { readStagedRun, stagedTrialEvents, type StagedRun, type StagedTrial } from './read-staged-run.ts'
