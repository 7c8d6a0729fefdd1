export {
  LiveRuns,
  STAGING_DIR,
  type LiveEventSource,
  type LiveListener,
  type LiveRunsOptions,
} from './live-runs.ts'
export { LiveEventStream, type LiveEventStreamOptions } from './sse.ts'
