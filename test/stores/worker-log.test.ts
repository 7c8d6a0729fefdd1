import { open, readdir, readFile, writeFile, mkdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { threadId } from 'node:worker_threads'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { workerLogPath, type TraceEvent, type TrialRecord } from '../../src/core/index.ts'
import { LogTail, WorkerLog, workerLogFor, type LogLine } from '../../src/stores/index.ts'
import { FIXTURE_BENCHMARK, makeEvents, makeTrials, tempDir } from '../bundles/fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
beforeEach(async () => {
  work = await tempDir('aeo-worker-log-')
})
afterEach(async () => {
  vi.restoreAllMocks()
  await work.remove()
})

const RUNNER = { name: 'mock-scripted', kind: 'mock', config: {} }

async function linesOf(path: string): Promise<LogLine[]> {
  const tail = new LogTail(path)
  const lines = await tail.read()
  await tail.close()
  return lines
}

/** Runs one trial through the log as the plugin does: events through a trace writer, finalize, then the record. */
async function runTrial(log: WorkerLog, record: TrialRecord, events: readonly TraceEvent[]): Promise<void> {
  const writer = log.traceStore(record.benchmark.id).open({ taskId: record.taskId, trial: record.trial })
  const appended: Promise<void>[] = []
  for (const event of events) {
    appended.push(writer.append(event))
    // Trials in flight interleave their events, as concurrent cases do.
    await new Promise((resolve) => setImmediate(resolve))
  }
  await writer.finalize()
  await Promise.all(appended)
  await log.appendRecord(record)
}

describe('WorkerLog', () => {
  it('resolves an awaited record only once it and its trial’s events are written and synced to disk', async () => {
    const [trial] = makeTrials()
    const log = new WorkerLog(workerLogPath(work.path, 1, 0))
    const probe = await open(join(work.path, 'probe'), 'w')
    const handleProto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> }
    await probe.close()
    const synced: string[] = []
    const { datasync } = handleProto
    vi.spyOn(handleProto, 'datasync').mockImplementation(async function (this: unknown) {
      await datasync.call(this)
      synced.push(await readFile(log.path, 'utf8').catch(() => ''))
    })
    const events = makeEvents(trial!)
    await runTrial(log, trial!, events)
    const expected = [
      ...events.map((e) => `{"event":${JSON.stringify(e)}}\n`),
      `{"record":${JSON.stringify(trial)}}\n`,
    ]
    // The sync happened before the record append resolved, over a file that already held every line, in order.
    expect(synced.at(-1)).toBe(expected.join(''))
    await log.close()
  })

  it('a worker writes one log for N concurrent trials, each trial’s events in order and before its record', async () => {
    const trials = makeTrials({ tasks: Array.from({ length: 20 }, (_, i) => `task-${i}`), trials: 3 })
    const log = workerLogFor(work.path)
    await log.stageBenchmark({ benchmark: FIXTURE_BENCHMARK, runner: RUNNER })
    // A second benchmark line for the same benchmark id is not written.
    await log.stageBenchmark({ benchmark: FIXTURE_BENCHMARK, runner: RUNNER })
    await Promise.all(trials.map((t) => runTrial(log, t, makeEvents(t))))
    expect(log.stats.commits).toBeLessThan(log.stats.appends)
    expect(await readdir(work.path, { recursive: true })).toEqual([
      'logs',
      join('logs', `${process.pid}-${threadId}.jsonl`),
    ])
    const lines = await linesOf(log.path)
    expect(lines[0]).toEqual({ benchmark: { benchmark: FIXTURE_BENCHMARK, runner: RUNNER } })
    expect(lines.filter((l) => 'benchmark' in l)).toHaveLength(1)
    for (const trial of trials) {
      const own = lines.flatMap((l, i) =>
        'event' in l && l.event.taskId === trial.taskId && l.event.trial === trial.trial ? [i] : [],
      )
      const recordAt = lines.findIndex(
        (l) => 'record' in l && l.record.taskId === trial.taskId && l.record.trial === trial.trial,
      )
      expect(own.map((i) => (lines[i] as { event: TraceEvent }).event)).toEqual(makeEvents(trial))
      expect(recordAt).toBeGreaterThan(Math.max(...own))
    }
    // The trials interleaved: this is one shared file, not a file per trial written one after another.
    const firstRecord = lines.findIndex((l) => 'record' in l)
    expect(
      new Set(lines.slice(0, firstRecord).flatMap((l) => ('event' in l ? [l.event.taskId] : []))).size,
    ).toBeGreaterThan(1)
    await log.close()
  })

  it('a trace writer refuses appends once finalized; its store reads the trial’s last attempt back', async () => {
    const [trial] = makeTrials()
    const log = new WorkerLog(workerLogPath(work.path, 1, 0))
    const events = makeEvents(trial!)
    // A retried case runs the trial again: the second attempt, from step 0, is its trace.
    await runTrial(log, trial!, events.slice(0, 2))
    await runTrial(log, trial!, events)
    const store = log.traceStore(trial!.benchmark.id)
    const writer = store.open({ taskId: trial!.taskId, trial: trial!.trial })
    await writer.finalize()
    expect(() => writer.append(events[0]!)).toThrow(/finalized/)
    expect(await store.read(writer.path)).toEqual(events)
    await log.close()
    await expect(log.appendRecord(trial!)).rejects.toThrow(/closed/)
  })

  it('starts on a line of its own after a torn last line an earlier writer left', async () => {
    const [first, second] = makeTrials()
    const path = workerLogPath(work.path, 1, 0)
    await mkdir(dirname(path), { recursive: true })
    const torn = `{"record":${JSON.stringify(first)}}`.slice(0, 40)
    await writeFile(path, torn)
    const log = new WorkerLog(path)
    await log.appendRecord(second!)
    await log.close()
    const tail = new LogTail(path)
    expect(await tail.read()).toEqual([{ record: second }])
    expect(tail.damaged).toBe(1)
    await tail.close()
  })

  it('a module loaded afresh (Vitest isolation) appends to the same log, losing nothing written before', async () => {
    const [first, second] = makeTrials()
    const before = await import('../../src/stores/worker-log.ts')
    await before.workerLogFor(work.path).appendRecord(first!)
    vi.resetModules()
    const after = await import('../../src/stores/worker-log.ts')
    expect(after).not.toBe(before)
    const log = after.workerLogFor(work.path)
    expect(log).not.toBe(before.workerLogFor(work.path))
    await log.appendRecord(second!)
    expect(await linesOf(log.path)).toEqual([{ record: first }, { record: second }])
    await log.close()
    await before.workerLogFor(work.path).close()
  })

  it('a new staging folder (a watch rerun) gets a new log, and the previous run’s log is closed', async () => {
    const [first] = makeTrials()
    const previous = workerLogFor(join(work.path, 'run-1'))
    await previous.appendRecord(first!)
    const next = workerLogFor(join(work.path, 'run-2'))
    expect(next.path).toBe(workerLogPath(join(work.path, 'run-2'), process.pid, threadId))
    expect(previous.closed).toBe(true)
    await expect(previous.appendRecord(first!)).rejects.toThrow(/closed/)
    await next.close()
  })
})
