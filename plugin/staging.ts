import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  BENCHMARK_INFO_FILE,
  recordPathFor,
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

// Folders already made by this worker: one mkdir per benchmark, not per trial.
const madeDirs = new Set<string>()

/**
 * Writes a finished trial's record into the staging folder, renamed into place so it is whole or absent whenever
 * the process dies. Synchronous and not fsynced, on purpose: async writes queue in libuv's small thread pool behind
 * the traces' fsyncs and stall every trial; a killed process leaves the page cache to the kernel anyway. On power
 * loss a trial whose record was lost recovers as unfinished from its trace, which its group commit synced.
 */
export function stageTrialRecord(stagingDir: string, record: TrialRecord): void {
  const path = join(stagingDir, recordPathFor(record.tracePath))
  const dir = dirname(path)
  if (!madeDirs.has(dir)) {
    mkdirSync(dir, { recursive: true })
    madeDirs.add(dir)
  }
  const partial = `${path}.partial`
  writeFileSync(partial, `${JSON.stringify(record)}\n`)
  renameSync(partial, path)
}
