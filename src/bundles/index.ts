export {
  sealBundle,
  writeBundle,
  type ExtraFile,
  type PrewrittenFile,
  type SealBundleInput,
  type WriteBundleInput,
} from './writer.ts'
export { ScoresJsonWriter, scoresJsonEntry } from './scores-json-writer.ts'
export { DurableFileWriter, writeDurableChunks, type FileDigest } from './durable-file.ts'
export type { TraceSource } from './trace-source.ts'
export { readBundle, type Bundle, type ReadMode, type RecoveredBundle } from './reader.ts'
export { validateBundle } from './validate.ts'
export { differenceFromRegistered, nameTrials } from './registered-checks.ts'
export { inspectBundle, type BundleInspection, type InspectOptions } from './inspect.ts'
export type { RecomputeSummary } from './summary-checks.ts'
export type { Finding } from './findings.ts'
export { BUNDLE_CHECKS, CHECK_NAMES, type CheckName } from './checks.ts'
export { FindingList, formatFindings } from './findings.ts'
export { StreamedTrialKeys } from './record-checks.ts'
export { manifestForDir, hashFile } from './manifest.ts'
export {
  MANIFEST_FILE,
  METADATA_FILE,
  RECORDINGS_FILE,
  REPLAY_COMMAND_FILE,
  REPORT_MD_FILE,
  SCORES_FILE,
  TRACES_FILE,
  requiredFiles,
} from './layout.ts'
export {
  compareRuns,
  COST_TOLERANCE,
  type ReplayVerdict,
  type TrialComparison,
  type RunSide,
} from './compare-runs.ts'
export { findBaseline, LATEST_BASELINE, type FindBaselineOptions } from './find-baseline.ts'
export { listRunFolders, planPrune, type KeepReason, type PrunePlan, type RunFolder } from './prune-plan.ts'
export { findBundleReferences, type BundleReferenceOptions } from './baseline-references.ts'
export { resealBundle, type ResealInput } from './reseal.ts'
export {
  gateLine,
  mergeShards,
  type GateVerdict,
  type MergeDerivation,
  type MergedRun,
  type MergeInput,
  type MergeResult,
} from './merge/index.ts'
export { runTargets, RunTargetsFold } from './run-targets.ts'
