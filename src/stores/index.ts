export { JsonlTraceStore, JsonlTraceWriter } from './jsonl-trace-store.ts'
export { MemoryTraceStore } from './memory-trace-store.ts'
export {
  WorkerLog,
  WorkerLogTraceStore,
  WorkerLogTraceWriter,
  WORKER_LOG_COMMIT_DELAY_MS,
  workerLogFor,
} from './worker-log.ts'
export { GroupCommitFile, type GroupCommitStats } from './group-commit-file.ts'
export {
  parseTraceJsonl,
  readTraceFile,
  type ParseTraceOptions,
  type TraceFileContents,
} from './parse-trace.ts'
export { traceFileName } from './trace-file-name.ts'
export {
  readStagedRun,
  stagedTrialEvents,
  LogTail,
  workerLogPaths,
  stagedTraces,
  type LogLine,
  type StagedTraces,
  type StagedRun,
  type StagedTrial,
} from './staging/index.ts'
export { LocalArtifactStore } from './local-artifact-store.ts'
export { whyNotWritable } from './writable-dir.ts'
