import { open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { recordLogPathFor } from '../../src/core/index.ts'
import { stageTrialRecord } from '../../plugin/staging.ts'
import { makeTrials, tempDir } from '../bundles/fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
beforeEach(async () => {
  work = await tempDir('aeo-stage-record-')
})
afterEach(async () => {
  vi.restoreAllMocks()
  await work.remove()
})

describe('stageTrialRecord', () => {
  it('resolves only once the record line is written and synced to disk (docs: an awaited append is on disk)', async () => {
    const [first, second] = makeTrials().map((t) => ({
      ...t,
      tracePath: `traces/toy/${t.taskId}.t${t.trial}.jsonl`,
    }))
    const probe = await open(join(work.path, 'probe'), 'w')
    const handleProto = Object.getPrototypeOf(probe) as {
      datasync: () => Promise<void>
      sync: () => Promise<void>
    }
    await probe.close()
    const synced: string[] = []
    const log = join(work.path, recordLogPathFor(first!.tracePath, process.pid))
    const record = (original: () => Promise<void>) =>
      async function (this: unknown) {
        await original.call(this)
        synced.push(await readFile(log, 'utf8').catch(() => ''))
      }
    const { datasync, sync } = handleProto
    vi.spyOn(handleProto, 'datasync').mockImplementation(record(datasync))
    vi.spyOn(handleProto, 'sync').mockImplementation(record(sync))

    await stageTrialRecord(work.path, first!)
    // The sync happened before the append resolved, over a file that already held the line.
    expect(synced.at(-1)).toBe(`${JSON.stringify(first)}\n`)
    await stageTrialRecord(work.path, second!)
    expect(synced.at(-1)).toBe(`${JSON.stringify(first)}\n${JSON.stringify(second)}\n`)
  })
})
