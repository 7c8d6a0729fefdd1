import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TrialRecord, benchmarkTraceDir, workerLogPath, type TraceEvent } from '../../src/core/index.ts'
import {
  WorkerLog,
  readStagedRun,
  stagedTraces,
  stagedTrialEvents,
  traceFileName,
} from '../../src/stores/index.ts'
import { tempDir } from '../bundles/fixtures.ts'
import { scoredTrial } from '../support/trials.ts'

let work: { path: string; remove: () => Promise<void> }
beforeEach(async () => {
  work = await tempDir('aeo-staged-')
})
afterEach(async () => {
  await work.remove()
})

const event = (taskId: string, trial: number, step: number, kind: TraceEvent['kind'], payload: object) =>
  JSON.stringify({
    runId: 'run-1',
    taskId,
    trial,
    step,
    ts: `2025-01-01T00:00:0${step}.000Z`,
    kind,
    payload,
    costDeltaUsd: 0.001,
    tokensDelta: 10,
    spanId: '0123456789abcdef',
  })

async function put(path: string, text: string) {
  await mkdir(join(work.path, path, '..'), { recursive: true })
  await writeFile(join(work.path, path), text)
}

describe('readStagedRun', () => {
  it('reads finished records, and makes an interrupted record of a trace without one, dropping a torn tail', async () => {
    await put(
      'run.json',
      JSON.stringify({
        v: 1,
        runId: 'run-1',
        startedAt: '2025-01-01T00:00:00.000Z',
        pid: 1,
        hostname: 'h',
        vitestProject: 'evals',
        labels: { team: 'a' },
        configHash: null,
        testNamePattern: null,
        shard: null,
        vitest: '4.1.12',
        node: 'v20',
        sdkVersion: '0.1.0',
        replayCommand: 'npx vitest run --project evals\n',
      }),
    )
    await put(
      'traces/b-1/benchmark.json',
      JSON.stringify({
        benchmark: { id: 'b', version: '1', datasetChecksum: 'x' },
        runner: { name: 'mock', kind: 'mock', config: {} },
      }),
    )
    const done = TrialRecord.parse({
      ...scoredTrial({ taskId: 'done', passed: true }),
      runId: 'run-1',
      tracePath: 'traces/b-1/done.t0.jsonl',
    })
    await put('traces/b-1/done.t0.jsonl', `${event('done', 0, 0, 'agent.plan', { text: 'x' })}\n`)
    await put('records/b-1/done.t0.json', JSON.stringify(done))
    await put(
      'traces/b-1/cut.t1.jsonl',
      `${event('cut', 1, 0, 'agent.plan', { text: 'x' })}\n${event('cut', 1, 1, 'agent.model_call', {})}\n{"runId":"run-1","ta`,
    )
    await put('records/b-1/cut.t1.json.partial', '{"half": ')

    const staged = await readStagedRun(work.path)
    expect(staged.runId).toBe('run-1')
    expect(staged.header?.labels).toEqual({ team: 'a' })
    expect(staged.trials.map((t) => [t.record.taskId, t.finished])).toEqual([
      ['cut', false],
      ['done', true],
    ])
    expect(staged.trials[1]!.record).toEqual(done)
    const cut = staged.trials[0]!.record
    expect(cut).toMatchObject({
      outcome: 'interrupted',
      passed: false,
      trial: 1,
      benchmark: { id: 'b' },
      runner: { name: 'mock' },
      usage: { tokens: 20, turns: 1, wallSeconds: 1 },
      eventCount: 3,
    })
    expect(staged.warnings).toEqual([
      'traces/b-1/cut.t1.jsonl: dropped a torn last line (the run died mid-write)',
    ])

    const events = await stagedTrialEvents(work.path, staged.trials[0]!)
    expect(events.map((e) => [e.step, e.kind])).toEqual([
      [0, 'agent.plan'],
      [1, 'agent.model_call'],
      [2, 'agent.terminal'],
    ])
    expect(events[2]!.payload).toMatchObject({ terminatedBy: 'interrupted', success: false })
    // Staged by an SDK whose events did not name their benchmark: the bundle gets events that do.
    expect(events.map((e) => e.benchmark)).toEqual(['b', 'b', 'b'])
  })

  it('says what it could not know: no header, no benchmark file, a damaged record', async () => {
    await put('traces/b-1/t.t0.jsonl', `${event('t', 0, 0, 'agent.plan', { text: 'x' })}\n`)
    await put('records/b-1/t.t0.json', '{not json')
    await put('traces/b-1/empty.t0.jsonl', '{"torn')
    const staged = await readStagedRun(work.path)
    expect(staged.header).toBeUndefined()
    expect(staged.runId).toBe('run-1')
    expect(staged.trials.map((t) => [t.record.taskId, t.finished, t.record.runner.name])).toEqual([
      ['t', false, 'unknown'],
    ])
    expect(staged.warnings.join('\n')).toMatch(/run\.json: missing/)
    expect(staged.warnings.join('\n')).toMatch(/records\/b-1\/t\.t0\.json: not valid JSON/)
    expect(staged.warnings.join('\n')).toMatch(
      /empty\.t0\.jsonl: left out, the trial had written no complete event/,
    )
    expect(staged.warnings.join('\n')).toMatch(/benchmark and runner are unknown/)
  })

  it('reads the worker logs: finished records, an unfinished trial over its durable prefix, a retried trial’s last attempt', async () => {
    const benchmark = { id: 'b', version: '1', datasetChecksum: 'x' }
    const runner = { name: 'mock', kind: 'mock', config: {} }
    const traceRoot = benchmarkTraceDir('', 'b')
    const record = (taskId: string, trial: number) =>
      TrialRecord.parse({
        ...scoredTrial({ taskId, trial, passed: true }),
        runId: 'run-1',
        benchmark,
        tracePath: `${traceRoot}/${traceFileName(taskId, trial)}`,
      })
    const logEvent = (
      taskId: string,
      trial: number,
      step: number,
      kind: TraceEvent['kind'],
      payload: object,
    ) =>
      `{"event":${JSON.stringify({ ...(JSON.parse(event(taskId, trial, step, kind, payload)) as object), benchmark: 'b' })}}\n`
    const done = record('done', 0)
    const retried = record('retried', 0)
    // Two workers; their trials interleave within a log, and the second log ends in a torn line.
    await put(
      'logs/10-1.jsonl',
      [
        `{"benchmark":${JSON.stringify({ benchmark, runner })}}\n`,
        logEvent('done', 0, 0, 'agent.plan', { text: 'x' }),
        logEvent('retried', 0, 0, 'agent.plan', { text: 'first attempt' }),
        logEvent('done', 0, 1, 'agent.terminal', { terminatedBy: 'completed', success: true, error: null }),
        `{"record":${JSON.stringify(done)}}\n`,
        logEvent('retried', 0, 0, 'agent.plan', { text: 'second attempt' }),
        `{"record":${JSON.stringify(retried)}}\n`,
      ].join(''),
    )
    await put(
      'logs/20-1.jsonl',
      [
        `{"benchmark":${JSON.stringify({ benchmark, runner })}}\n`,
        logEvent('cut', 1, 0, 'agent.plan', { text: 'x' }),
        logEvent('cut', 1, 1, 'agent.model_call', {}),
        '{"event":{"runId":"run-1","ta',
      ].join(''),
    )
    const staged = await readStagedRun(work.path)
    expect(staged.trials.map((t) => [t.record.taskId, t.finished])).toEqual([
      ['cut', false],
      ['done', true],
      ['retried', true],
    ])
    expect(staged.trials[1]!.record).toEqual(done)
    expect(staged.trials[0]!.record).toMatchObject({
      outcome: 'interrupted',
      trial: 1,
      benchmark,
      runner,
      tracePath: `${traceRoot}/${traceFileName('cut', 1)}`,
      usage: { tokens: 20, turns: 1, wallSeconds: 1 },
      eventCount: 3,
    })
    expect(staged.warnings).toEqual([
      "run.json: missing; the run's labels and settings are unknown",
      'logs/20-1.jsonl: dropped a torn last line (the run died mid-write)',
    ])
    const cut = await stagedTrialEvents(work.path, staged.trials[0]!)
    expect(cut.map((e) => [e.step, e.kind])).toEqual([
      [0, 'agent.plan'],
      [1, 'agent.model_call'],
      [2, 'agent.terminal'],
    ])
    const again = await stagedTrialEvents(work.path, staged.trials[2]!)
    expect(again.map((e) => e.payload)).toContainEqual({ text: 'second attempt' })
    expect(again.map((e) => e.payload)).not.toContainEqual({ text: 'first attempt' })
  })

  it('reads a run staged half in worker logs and half in the older layout, each trial once', async () => {
    const [logged, filed] = [0, 1].map((trial) =>
      TrialRecord.parse({
        ...scoredTrial({ taskId: 't', trial, passed: true }),
        runId: 'run-1',
        tracePath: `traces/b-1/t.t${trial}.jsonl`,
      }),
    )
    const log = new WorkerLog(workerLogPath(work.path, 1, 0))
    await log.appendRecord(logged!)
    await log.close()
    await put('traces/b-1/t.t1.jsonl', `${event('t', 1, 0, 'agent.plan', { text: 'x' })}\n`)
    await put('records/b-1/t.t1.json', JSON.stringify(filed))
    const staged = await readStagedRun(work.path)
    expect(staged.trials.map((t) => t.record)).toEqual([logged, filed])
  })
})

describe('stagedTraces', () => {
  it('hands the bundle writer each trial’s events from the logs, in the order asked', async () => {
    const trials = [0, 1, 2].map((trial) => ({
      ...scoredTrial({ taskId: `task-${trial}`, passed: true }),
      tracePath: `${benchmarkTraceDir('', 'toy')}/task-${trial}.t0.jsonl`,
    }))
    const log = new WorkerLog(workerLogPath(work.path, 1, 0))
    const store = log.traceStore('toy')
    const eventsOf = (taskId: string) =>
      [0, 1].map((step) => ({
        ...(JSON.parse(event(taskId, 0, step, 'agent.plan', { text: `${taskId} ${step}` })) as TraceEvent),
        benchmark: 'toy',
      }))
    // Interleaved, as concurrent trials write them.
    const writers = trials.map((t) => store.open({ taskId: t.taskId, trial: 0 }))
    for (const step of [0, 1]) writers.forEach((w, i) => void w.append(eventsOf(`task-${i}`)[step]!))
    for (const t of trials) await log.appendRecord(t)
    await log.close()
    const { traceFiles, readTraceFile } = await stagedTraces(work.path, [...trials].reverse())
    expect(traceFiles).toEqual([...trials].reverse().map((t) => join(work.path, t.tracePath)))
    for (const [i, file] of traceFiles.entries()) {
      const text = await readTraceFile(file)
      expect(
        text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as unknown),
      ).toEqual(eventsOf(`task-${2 - i}`))
    }
  })
})
