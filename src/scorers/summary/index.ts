export {
  STATISTICS_METHOD_VERSION,
  statsScorer,
  SummaryFold,
  summarizeTrials,
  withGroupedHeadline,
} from './stats-scorer.ts'
export { DEFAULT_SUMMARY_SETTINGS, resolveSummarySettings, SummaryOptions } from './settings.ts'
export {
  groupByTask,
  taskKey,
  isInfraFailure,
  type SummarizedScore,
  type SummarizedTrial,
  type TaskGroup,
} from './task-groups.ts'
export { headlineOf } from './headline.ts'
export { passAtKTable } from './metric.ts'
export { statsSummaryRecomputer } from './recompute.ts'
