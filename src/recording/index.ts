export { RecordingSession, type RecordingSessionOptions, type TrialGate } from './session.ts'
export {
  RECORD_MODES,
  RECORD_ENV,
  RECORDINGS_FILE_ENV,
  recordModeFromEnv,
  isCi,
  type RecordMode,
} from './mode.ts'
export { RecordingEntry, cassettePath, readCassette } from './cassette.ts'
export { normalizeRequest, requestKey } from './request-key.ts'
export { jsonDiff, describeDiff, type Difference } from './json-diff.ts'
