import { mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { writeDurableFile } from '../src/bundles/durable-file.ts'
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

/**
 * Writes a finished trial's record into the staging folder: synced, then renamed into place, so the record is
 * either whole or absent whenever the process dies.
 */
export async function stageTrialRecord(stagingDir: string, record: TrialRecord): Promise<void> {
  const path = join(stagingDir, recordPathFor(record.tracePath))
  await mkdir(dirname(path), { recursive: true })
  const partial = `${path}.partial`
  await writeDurableFile(partial, `${JSON.stringify(record)}\n`)
  await rename(partial, path)
}
