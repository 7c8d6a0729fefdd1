// A resumed run takes each finished trial over with its own events, also when two benchmarks of the bundle share
// task ids, and from a bundle whose events do not name their benchmark (format 2, which could not hold two).
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reuseFor } from '../../plugin/resume.ts'
import { writeBundle } from '../../src/bundles/index.ts'
import type { TrialRecord } from '../../src/core/index.ts'
import {
  bundleInput,
  dropEventBenchmarks,
  RUN_ID,
  restampManifest,
  sharedTaskIdsInput,
  tempDir,
} from '../bundles/fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
let trials: TrialRecord[]

const PARTS = { task: 't', runner: 'r', limits: 'l', evaluators: 'e', policy: 'p', grader: 'g' }
const keysOf = (t: { benchmark: { id: string }; taskId: string; trial: number }) => ({
  agent: `agent:${t.benchmark.id}/${t.taskId}#${t.trial}`,
  score: 'score',
  parts: PARTS,
})

/**
 * A bundle whose every trial has keys to be resumed by: of two benchmarks with the same task ids, or of one as format
 * 2 wrote it.
 */
async function bundle(name: string, version: 2 | 3): Promise<string> {
  const input = await (version === 3 ? sharedTaskIdsInput : bundleInput)(join(work.path, name))
  trials = input.trials.map((t) => ({ ...t, keys: keysOf(t) }))
  const dir = await writeBundle({ ...input, trials })
  if (version === 2) {
    for (const [file, field] of [
      ['scores.json', 'schemaVersion'],
      ['metadata.json', 'schemaVersion'],
    ] as const) {
      const value = JSON.parse(await readFile(join(dir, file), 'utf8')) as object
      await writeFile(join(dir, file), JSON.stringify({ ...value, [field]: 2 }))
    }
    await dropEventBenchmarks(dir)
    await restampManifest(dir)
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as object
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, formatVersion: 2 }))
  }
  return dir
}

beforeAll(async () => {
  work = await tempDir('aeo-resume-')
})

afterAll(async () => {
  await work.remove()
})

describe('reuseFor', () => {
  it.each([3, 2] as const)(
    'takes each benchmark’s trial over with its own events (format %i)',
    async (version) => {
      const dir = await bundle(`v${version}`, version)
      for (const t of trials) {
        const { reuse } = await reuseFor([{ dir, runId: RUN_ID }], {
          benchmarkId: t.benchmark.id,
          taskId: t.taskId,
          trial: t.trial,
          keys: keysOf(t),
        })
        expect(reuse?.mode, `${t.benchmark.id}/${t.taskId}#${t.trial}`).toBe('record')
        expect(reuse!.from.benchmark.id).toBe(t.benchmark.id)
        expect(reuse!.events.map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5, 6])
        expect(new Set(reuse!.events.map((e) => e.benchmark))).toEqual(new Set([t.benchmark.id]))
        const answer = reuse!.events.find((e) => e.kind === 'agent.final_answer')?.payload
        expect(answer).toEqual({ answer: t.result?.finalAnswer })
      }
    },
  )

  it('runs a trial again whose limits or runner changed, and says which', async () => {
    const dir = await bundle('changed', 3)
    const t = trials[0]!
    const at = { benchmarkId: t.benchmark.id, taskId: t.taskId, trial: t.trial }
    const limited = { ...keysOf(t), agent: 'other', parts: { ...PARTS, limits: 'l2' } }
    const changed = await reuseFor([{ dir, runId: RUN_ID }], { ...at, keys: limited })
    expect(changed.reuse).toBeUndefined()
    expect(changed.runAgain).toEqual({ runId: RUN_ID, reasons: ['limits changed'] })
    const rescripted = { ...keysOf(t), agent: 'other', parts: { ...PARTS, runner: 'r2', limits: 'l2' } }
    const again = await reuseFor([{ dir, runId: RUN_ID }], { ...at, keys: rescripted })
    expect(again.runAgain?.reasons).toEqual(['runner config changed', 'limits changed'])
    // A workspace-graded benchmark cannot re-score what changed evaluators would judge: it runs again, and says so.
    const rejudged = { ...keysOf(t), score: 'other', parts: { ...PARTS, evaluators: 'e2' } }
    const graded = await reuseFor([{ dir, runId: RUN_ID }], { ...at, keys: rejudged }, false)
    expect(graded.runAgain?.reasons[0]).toMatch(/^evaluators changed and this benchmark grades the workspace/)
    expect((await reuseFor([{ dir, runId: RUN_ID }], { ...at, keys: rejudged })).reuse?.mode).toBe('rescored')
  })
})
