import { open, readFile, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { TrialRecord } from '../../core/index.ts'
import { indexWorkerLogs, readLoggedTrace, trialKey, type LoggedTrace } from './log-index.ts'

/** The trace files of a bundle's trials, as the bundle writer reads them (its `traceFiles` source). */
export interface StagedTraces {
  /** One per trial, in the order given: the trial's logical trace path in the staging folder. */
  traceFiles: string[]
  readTraceFile: (path: string) => Promise<string>
}

/**
 * The events of the given trials, in their order, from the run's worker logs: one pass indexes where each trial's
 * events are (byte ranges, not the events), then each trial's events are read by range when the writer asks for
 * them, so memory holds the index and the trials being read, never the run's events. A trial the logs do not hold
 * is read from its trace file (a staging folder of an older SDK).
 */
export async function stagedTraces(
  stagingDir: string,
  trials: readonly TrialRecord[],
): Promise<StagedTraces> {
  const index = await indexWorkerLogs(stagingDir, { records: 'skip' })
  const byPath = new Map<string, LoggedTrace>()
  const traceFiles = trials.map((t) => {
    const path = join(stagingDir, t.tracePath)
    const logged = index.trials.get(trialKey(t.benchmark.id, t.taskId, t.trial))
    if (logged && logged.events > 0) byPath.set(path, logged.trace)
    return path
  })
  const handles = new Map<string, Promise<FileHandle>>()
  let unread = byPath.size
  const closeAll = async () => {
    const all = [...handles.values()]
    handles.clear()
    await Promise.all(all.map(async (h) => (await h.catch(() => undefined))?.close()))
  }
  const readTraceFile = async (path: string): Promise<string> => {
    const trace = byPath.get(path)
    if (!trace) return readFile(path, 'utf8')
    byPath.delete(path)
    let handle = handles.get(trace.log)
    if (!handle) handles.set(trace.log, (handle = open(trace.log, 'r')))
    try {
      return await readLoggedTrace(trace, await handle)
    } finally {
      // The logs stay open while trials are read from them, and close with the last.
      if (--unread === 0) await closeAll()
    }
  }
  return { traceFiles, readTraceFile }
}
