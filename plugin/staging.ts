import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  BENCHMARK_INFO_FILE,
  recordLogPathFor,
  type StagedBenchmark,
  type TrialRecord,
} from '../src/core/index.ts'
import { GroupCommitFile } from '../src/stores/index.ts'

// Once per trace folder and worker: the benchmark and runner do not change within a run.
const staged = new Map<string, Promise<void>>()

/** Says which benchmark and runner a folder of traces belongs to, for `recover` to name unfinished trials. */
export function stageBenchmark(traceRoot: string, info: StagedBenchmark): Promise<void> {
  let done = staged.get(traceRoot)
  if (!done) {
    done = (async () => {
      await mkdir(traceRoot, { recursive: true })
      await writeFile(join(traceRoot, BENCHMARK_INFO_FILE), `${JSON.stringify(info)}\n`)
    })()
    staged.set(traceRoot, done)
  }
  return done
}

// This worker's open record logs, by path: one open per benchmark and run, not per trial.
const logs = new Map<string, GroupCommitFile>()
let logsOf: string | undefined

/**
 * Appends a finished trial's record to this worker's record log in the staging folder, as one line, and resolves once
 * it is on disk (group commit: records that finish together share one fsync). Appended, never truncated: with
 * Vitest's isolation every test file loads this module afresh in the same worker, and so opens the same log again.
 * A torn last line (power loss mid-write) is dropped by the reader, and its trial recovers as unfinished from its
 * trace, which its group commit synced.
 */
export async function stageTrialRecord(stagingDir: string, record: TrialRecord): Promise<void> {
  if (logsOf !== stagingDir) {
    // A new run (watch mode): the last one's logs are done with.
    const done = [...logs.values()]
    logs.clear()
    logsOf = stagingDir
    await Promise.all(done.map((log) => log.close().catch(() => undefined)))
  }
  const path = join(stagingDir, recordLogPathFor(record.tracePath, process.pid))
  let log = logs.get(path)
  if (log === undefined) {
    log = new GroupCommitFile(
      path,
      async () => void (await mkdir(dirname(path), { recursive: true })),
      0,
      'a',
    )
    logs.set(path, log)
  }
  await log.append(`${JSON.stringify(record)}\n`)
}
