import { AgentEvalOpsError, type TraceStore } from '../../core/index.ts'

/**
 * Where a span-level trial's events go: nowhere. Its scores are kept (published, in the window's record of scores);
 * its events repeat part of the trace-level trial's, which the window's bundle keeps.
 */
export function unkeptTraces(): TraceStore {
  return {
    open: (key) => ({
      path: `${key.taskId}.unkept`,
      append: () => Promise.resolve(),
      finalize: () => Promise.resolve(),
    }),
    read: (path) =>
      Promise.reject(new AgentEvalOpsError('TRACE_INVALID', `span-level trials keep no trace (${path})`)),
  }
}
