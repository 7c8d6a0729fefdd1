import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TrialRecord, type TraceEvent } from '../../src/core/index.ts'
import { readStagedRun, stagedTrialEvents } from '../../src/stores/index.ts'
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
})
