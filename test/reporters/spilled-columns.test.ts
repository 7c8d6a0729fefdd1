import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withTasks, type TaskSummary } from '../../src/core/index.ts'
import { groupByTask, summarizeTrials, SummaryFold } from '../../src/scorers/index.ts'
import { seededRandom } from '../../src/scorers/stats/index.ts'
import { SpilledColumns } from '../../reporters/spilled-columns.ts'
import { tempDir } from '../bundles/fixtures.ts'
import { randomTrials, settingsFor } from '../scorers/random-run.ts'

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('aeo-columns-')
})
afterAll(() => work.remove())

describe('SpilledColumns', () => {
  it('gives back every number pushed, bit for bit, however many, as often as asked', () => {
    const columns = new SpilledColumns(work.path)
    const random = seededRandom(5)
    const special = [0, -0, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE, 0.1 + 0.2]
    const values = Array.from({ length: 10_000 }, (_, i) => (i % 97 === 0 ? special[i % 8]! : random() * 1e6))
    const column = columns.column()
    const empty = columns.column()
    values.slice(0, 5000).forEach((v) => column.push(v))
    expect(Object.is(column.values()[0], 0)).toBe(true)
    values.slice(5000).forEach((v) => column.push(v))
    expect(column.length).toBe(values.length)
    const back = column.values()
    expect(back).toHaveLength(values.length)
    expect(back.every((v, i) => Object.is(v, values[i]))).toBe(true)
    expect(column.values()).toEqual(back)
    expect(empty.values()).toEqual([])
    columns.close()
  })

  it("makes SummaryFold's figures those of summarizeTrials, to the byte", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const trials = randomTrials(seed)
      const settings = settingsFor(seed)
      const columns = new SpilledColumns(work.path)
      const rows: TaskSummary[] = []
      const fold = new SummaryFold(settings, (task) => rows.push(task), columns)
      for (const group of groupByTask(trials)) for (const trial of group.trials) fold.add(trial)
      expect(JSON.stringify(withTasks(fold.finishHead(), rows)), `seed ${seed}`).toBe(
        JSON.stringify(summarizeTrials(trials, settings)),
      )
      columns.close()
    }
  })
})
