// A staging folder as a run that died leaves it: header, benchmark info, traces, and the worker's record log (the
// layout of older SDKs), or header and worker logs (this one's).
import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { recordLogPathFor, workerLogPath, type TrialRecord } from '../../src/core/index.ts'
import { WorkerLog } from '../../src/stores/index.ts'
import { FIXTURE_BENCHMARK, makeEvents, RUN_ID, toJsonl } from '../bundles/fixtures.ts'

/** Above Linux's largest pid (2^22): no process has it, so the run it names is over. */
export const DEAD_PID = 4_194_305

/** `finished` trials get a record line; `unfinished` ones only their trace (cut short by the kill). */
export async function stageRun(
  dir: string,
  finished: readonly TrialRecord[],
  unfinished: readonly TrialRecord[] = [],
): Promise<void> {
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  await writeHeader(dir)
  const runner = (finished[0] ?? unfinished[0])!.runner
  await put(
    `traces/${FIXTURE_BENCHMARK.id}/benchmark.json`,
    JSON.stringify({ benchmark: FIXTURE_BENCHMARK, runner }),
  )
  for (const trial of [...finished, ...unfinished]) await put(trial.tracePath, toJsonl(makeEvents(trial)))
  const lines = finished.map((t) => `${JSON.stringify(t)}\n`).join('')
  if (finished[0]) await put(recordLogPathFor(finished[0].tracePath, DEAD_PID), lines)
}

/**
 * The same run as the worker logs of this SDK leave it: one log per worker, `finished` trials with their events and
 * record, `unfinished` ones with their events only, and the last log cut mid-line by the kill.
 */
export async function stageRunInLogs(
  dir: string,
  finished: readonly TrialRecord[],
  unfinished: readonly TrialRecord[] = [],
  header: Record<string, unknown> = {},
): Promise<void> {
  await writeHeader(dir, header)
  const runner = (finished[0] ?? unfinished[0])!.runner
  const workers = [
    new WorkerLog(workerLogPath(dir, DEAD_PID, 1)),
    new WorkerLog(workerLogPath(dir, DEAD_PID, 2)),
  ]
  const all = [...finished.map((t) => ({ t, done: true })), ...unfinished.map((t) => ({ t, done: false }))]
  for (const [i, { t, done }] of all.entries()) {
    const log = workers[i % workers.length]!
    await log.stageBenchmark({ benchmark: FIXTURE_BENCHMARK, runner })
    const writer = log.traceStore(t.benchmark.id).open({ taskId: t.taskId, trial: t.trial })
    for (const event of makeEvents(t)) await writer.append(event)
    await writer.finalize()
    if (done) await log.appendRecord({ ...t, eventCount: makeEvents(t).length })
  }
  for (const log of workers) await log.close()
  await appendFile(workers.at(-1)!.path, '{"event":{"runId":"')
}

async function writeHeader(dir: string, header: Record<string, unknown> = {}): Promise<void> {
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  await put(
    'run.json',
    JSON.stringify({
      v: 1,
      runId: RUN_ID,
      startedAt: '2025-01-01T00:00:00.000Z',
      pid: DEAD_PID,
      hostname: hostname(),
      vitestProject: 'evals',
      labels: {},
      configHash: null,
      testNamePattern: null,
      shard: null,
      vitest: '4.1.12',
      node: process.version,
      sdkVersion: '0.1.0',
      replayCommand: 'npx vitest run --project evals\n',
      ...header,
    }),
  )
}
