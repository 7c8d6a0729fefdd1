export { BundleReporter, type BundleReporterOptions } from './bundle-reporter'
export { consoleSummary } from './console-summary'
