import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { eventsRange, partRange, recordRange, RunFold } from '../../reporters/run-fold.ts'
import { readSpilledRecord } from '../../reporters/spilled-record.ts'
import { slimTrial } from '../../reporters/slim-trial.ts'
import { scoresJsonEntry } from '../../src/bundles/index.ts'
import { ReportTrials } from '../../src/reports/sections/trials.ts'
import { makeEvents, makeTrials, RUN_ID, tempDir } from '../bundles/fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
beforeEach(async () => {
  work = await tempDir('aeo-runfold-')
})
afterEach(async () => {
  await work.remove()
})

describe('RunFold', () => {
  it("copies each event's JSON as the worker wrote it, spills the record's slim form and scores.json entry, and parses both for the parts", async () => {
    const record = makeTrials({ tasks: ['task-0'], trials: 1 })[0]!
    const events = makeEvents(record)
    // Valid JSON that JSON.stringify would write otherwise (an escaped letter): what is copied shows in the bytes.
    const texts = events.map((e, i) =>
      i === 0 ? JSON.stringify(e).replace('"agent.plan"', '"agent.pl\\u0061n"') : JSON.stringify(e),
    )
    expect(texts[0]).not.toBe(JSON.stringify(events[0]))
    const recordText = JSON.stringify(record).replace('"passed"', '"p\\u0061ssed"')
    expect(recordText).not.toBe(JSON.stringify(record))
    const log = [...texts.map((t) => `{"event":${t}}\n`), `{"record":${recordText}}\n`].join('')
    await mkdir(join(work.path, 'logs'))
    await writeFile(join(work.path, 'logs', '1-0.jsonl'), log)
    const seen: unknown[] = []
    const fold = await RunFold.open(work.path, RUN_ID, [
      { file: 'kinds.txt', text: (_, evs) => (seen.push(...evs), `${evs.map((e) => e.kind).join(',')}\n`) },
    ])
    try {
      await fold.caughtUp()
      const [folded, ...more] = fold.index.sorted()
      expect(more).toEqual([])
      expect(fold.readMany('events', [eventsRange(folded!)])[0]!.toString()).toBe(
        texts.map((t) => `${t}\n`).join(''),
      )
      expect(seen).toEqual(events)
      const spilled = readSpilledRecord(fold.readMany('records', [recordRange(folded!)])[0]!)
      expect(spilled.entry.toString()).toBe(scoresJsonEntry(record))
      expect(spilled.slim).toEqual(JSON.parse(JSON.stringify(slimTrial(record))))
      expect(spilled.rows).toBe(ReportTrials.showsRows(record))
      const { timing: _timing, ...untimed } = record
      expect(spilled.record()).toEqual(untimed)
      expect(fold.readMany(0, [partRange(folded!, 0)])[0]!.toString()).toBe(
        `${events.map((e) => e.kind).join(',')}\n`,
      )
    } finally {
      await fold.close()
    }
  })
})
