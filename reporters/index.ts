export { BundleReporter, type BundleReporterOptions } from './bundle-reporter.ts'
export { consoleSummary } from './console-summary.ts'
