export { BundleReporter, type BundleReporterOptions } from './bundle-reporter.ts'
export { consoleSummary } from './console-summary.ts'
export {
  ProgressReporter,
  formatProgress,
  type ProgressReporterOptions,
  type ProgressState,
} from './progress-reporter.ts'
export { appendGithubStepSummary, githubStepSummary, type GithubSummaryInput } from './github-summary.ts'
