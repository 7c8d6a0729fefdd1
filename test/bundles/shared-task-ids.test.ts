// A run may hold two benchmarks with the same task ids (HumanEval as `humaneval` and `humaneval@weak`, or one
// benchmark under two configs): a trial is (benchmark, task, trial), in the writer, the checks and the reader.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle, validateBundle, writeBundle } from '../../src/bundles/index.ts'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import {
  copyBundle,
  makeEvents,
  readTraceLines,
  restampManifest,
  sharedTaskIdsInput,
  tempDir,
  writeTraceLines,
} from './fixtures.ts'

const input = sharedTaskIdsInput

let work: { path: string; remove: () => Promise<void> }
let dir: string
let copies = 0

type Event = Record<string, unknown>

/** A copy of the bundle with traces.jsonl rewritten through `edit` and the manifest re-stamped. */
async function editTraces(edit: (events: Event[]) => Event[]): Promise<string> {
  const copy = await copyBundle(dir, join(work.path, `copy-${++copies}`))
  const events = (await readTraceLines(copy)).map((l) => JSON.parse(l) as Event)
  await writeTraceLines(
    copy,
    edit(events).map((e) => JSON.stringify(e)),
  )
  await restampManifest(copy)
  return copy
}

const of = (benchmark: string, taskId: string, trial: number) => (e: Event) =>
  e.benchmark === benchmark && e.taskId === taskId && e.trial === trial

beforeAll(async () => {
  work = await tempDir('aeo-shared-ids-')
  dir = await writeBundle(await input(work.path))
})

afterAll(async () => {
  await work.remove()
})

describe('a bundle of two benchmarks with the same task ids', () => {
  it('is written, ordered by benchmark, task, trial and step, and validates clean', async () => {
    expect(await validateBundle(dir)).toEqual([])
    const events = (await readTraceLines(dir)).map((l) => JSON.parse(l) as Event)
    expect(events).toHaveLength(2 * 6 * 7)
    expect(events.slice(0, 7).every(of('toy', 'task-0', 0))).toBe(true)
    expect(events.slice(6 * 7, 7 * 7).every(of('toy@weak', 'task-0', 0))).toBe(true)
  })

  it('reads, each trial with its own events', async () => {
    const bundle = await readBundle(dir)
    expect(bundle.scores.trials).toHaveLength(12)
    for (const trial of bundle.scores.trials) {
      const own = bundle.events.filter(
        (e) => e.benchmark === trial.benchmark.id && e.taskId === trial.taskId && e.trial === trial.trial,
      )
      expect(own.map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5, 6])
      const answer = own.find((e) => e.kind === 'agent.final_answer')?.payload
      expect(answer).toEqual({ answer: trial.result?.finalAnswer })
    }
  })

  it('catches a trial whose benchmark has no events, and events of a benchmark with no trial', async () => {
    const copy = await editTraces((events) =>
      events.map((e) => (of('toy@weak', 'task-1', 0)(e) ? { ...e, benchmark: 'toy@other' } : e)),
    )
    const findings = await validateBundle(copy)
    expect(findings.map((f) => [f.check, f.message])).toEqual([
      [
        'trials-match-traces',
        'task "task-1" trial 0 (benchmark "toy@weak") is in scores.json but has no events',
      ],
      [
        'trials-match-traces',
        '7 event(s) for task "task-1" trial 0 (benchmark "toy@other"), which is not in scores.json',
      ],
    ])
  })

  it("catches one benchmark's trial given the other's events", async () => {
    const copy = await editTraces((events) =>
      events.map((e) => (of('toy@weak', 'task-2', 1)(e) ? { ...e, benchmark: 'toy' } : e)),
    )
    const findings = await validateBundle(copy)
    expect(findings.map((f) => f.check)).toContain('trace-order')
    expect(findings.map((f) => f.message)).toContain(
      'task "task-2" trial 1 (benchmark "toy@weak") is in scores.json but has no events',
    )
  })

  it('checks recordings by benchmark too', async () => {
    const exchange = (fields: Event) =>
      JSON.stringify({
        v: 1,
        ...fields,
        key: 'a'.repeat(64),
        ordinal: 0,
        request: { model: 'm' },
        response: { content: [] },
        attempts: [],
        recordedAt: '2025-01-02T03:04:05.000Z',
      })
    const copy = await copyBundle(dir, join(work.path, `copy-${++copies}`))
    await writeFile(
      join(copy, 'recordings.jsonl'),
      [
        exchange({ benchmark: 'toy@weak', taskId: 'task-0', trial: 1 }),
        // From before recordings named their benchmark: it answers the task's trial in either.
        exchange({ taskId: 'task-0', trial: 1 }),
        exchange({ benchmark: 'toy@other', taskId: 'task-0', trial: 1 }),
        '',
      ].join('\n'),
    )
    await restampManifest(copy)
    expect((await validateBundle(copy)).map((f) => f.message)).toEqual([
      'line 3: a recording of task "task-0" trial 1 (benchmark "toy@other"), which scores.json does not have',
    ])
  })

  it('is refused by the writer when its events do not name their benchmark', async () => {
    const from = await input(join(work.path, 'unnamed'))
    const traceEvents = from.trials.flatMap((t) => makeEvents(t)).map(({ benchmark: _b, ...e }) => e)
    const { traceFiles: _files, ...rest } = from
    const error = await writeBundle({ ...rest, traceEvents }).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'BUNDLE_INVALID')).toBe(true)
    expect((error as Error).message).toContain('event 1: the event names no benchmark')
  })
})
