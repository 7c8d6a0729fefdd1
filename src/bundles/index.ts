export { writeBundle, type ExtraFile, type WriteBundleInput } from './writer'
export type { TraceSource } from './trace-source'
export { readBundle, type Bundle, type ReadMode, type RecoveredBundle } from './reader'
export { validateBundle } from './validate'
export { inspectBundle, type BundleInspection, type InspectOptions } from './inspect'
export type { Finding } from './findings'
export { formatFindings } from './findings'
export { manifestForDir, hashFile } from './manifest'
export {
  MANIFEST_FILE,
  METADATA_FILE,
  REPLAY_COMMAND_FILE,
  REPORT_MD_FILE,
  SCORES_FILE,
  TRACES_FILE,
  requiredFiles,
} from './layout'
