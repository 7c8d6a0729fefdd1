import { appendFileSync, closeSync, mkdirSync, openSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  BENCHMARK_INFO_FILE,
  recordLogPathFor,
  type StagedBenchmark,
  type TrialRecord,
} from '../src/core/index.ts'

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
const logs = new Map<string, number>()
let logsOf: string | undefined

/**
 * Appends a finished trial's record to this worker's record log in the staging folder, as one line. Synchronous and
 * not fsynced, on purpose: async writes queue in libuv's small thread pool behind the traces' fsyncs and stall every
 * trial, and a write to an open file costs a tenth of writing and renaming a file per trial; a killed process
 * leaves the page cache to the kernel anyway. A torn last line (power loss mid-write) is dropped by the reader, and
 * its trial recovers as unfinished from its trace, which its group commit synced.
 */
export function stageTrialRecord(stagingDir: string, record: TrialRecord): void {
  if (logsOf !== stagingDir) {
    // A new run (watch mode): the last one's logs are done with.
    for (const open of logs.values()) closeSync(open)
    logs.clear()
    logsOf = stagingDir
  }
  const path = join(stagingDir, recordLogPathFor(record.tracePath, process.pid))
  let fd = logs.get(path)
  if (fd === undefined) {
    mkdirSync(dirname(path), { recursive: true })
    logs.set(path, (fd = openSync(path, 'a')))
  }
  appendFileSync(fd, `${JSON.stringify(record)}\n`)
}
