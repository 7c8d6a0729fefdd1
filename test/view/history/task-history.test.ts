import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TaskHistoryRow } from '../../../src/view/api.ts'
import type { IndexedRun } from '../../../src/view/catalog/indexed-run.ts'
import { taskHistory } from '../../../src/view/history/index.ts'
import { tempDir } from '../../bundles/fixtures.ts'
import { passes, SERIES_TASKS, writeBundleSeries, type SeriesRun } from '../../support/bundle-series.ts'
import { readIndexedRuns } from './indexed-runs.ts'

const N = 30
let work: Awaited<ReturnType<typeof tempDir>>
let series: SeriesRun[]
let indexed: IndexedRun[]

beforeAll(async () => {
  work = await tempDir('aeo-task-history-')
  const runsDir = join(work.path, 'bundles')
  series = await writeBundleSeries(runsDir, { count: N })
  indexed = (await readIndexedRuns(runsDir)).reverse()
})

afterAll(async () => {
  await work.remove()
})

const key = (taskId: string) => `series-bench/${taskId}`

function rowOf(rows: readonly TaskHistoryRow[], taskId: string): TaskHistoryRow {
  const row = rows.find((r) => r.taskKey === key(taskId))
  expect(row, taskId).toBeDefined()
  return row!
}

describe('taskHistory over a folder of 30 bundles of one benchmark', () => {
  it('has a column per run, oldest first, and each cell the counts scores.json gives the task', async () => {
    const history = taskHistory(indexed, 'series-bench', 'improving-agent')
    expect(history.runs).toEqual(series.map((r) => r.runId))
    expect(history.pooledRuns).toBeUndefined()
    for (const [column, run] of series.entries()) {
      const scores = JSON.parse(await readFile(join(run.dir, 'scores.json'), 'utf8')) as {
        summary: { tasks: { benchmarkId: string; taskId: string; trials: number; passed: number }[] }
      }
      const rows = new Map(history.tasks.map((r) => [r.taskKey, r]))
      expect(rows.size).toBe(scores.summary.tasks.length)
      for (const task of scores.summary.tasks) {
        const row = rows.get(`${task.benchmarkId}/${task.taskId}`)!
        expect(row.cells[column]).toEqual({ trials: task.trials, passed: task.passed })
      }
    }
  })

  it('lists the flaky task as flaky, with the runs it passed and failed in as its evidence', () => {
    const row = rowOf(taskHistory(indexed, 'series-bench', 'improving-agent').tasks, SERIES_TASKS.flaky)
    expect(row.kind).toBe('flaky')
    expect(row.direction).toBeNull()
    expect(row.cells.map((c) => c!.passed === c!.trials)).toEqual(
      series.map((r) => passes(SERIES_TASKS.flaky, r.index, N)),
    )
    expect(row.cells.some((c) => c!.passed === 0)).toBe(true)
    expect(row.flips).toBeGreaterThanOrEqual(2)
  })

  it('calls the task that failed only in the last run flipped, regressed; the one that never passed never-passed', () => {
    const { tasks } = taskHistory(indexed, 'series-bench', 'improving-agent')
    const regressed = rowOf(tasks, SERIES_TASKS.regressed)
    expect(regressed).toMatchObject({ kind: 'flipped', direction: 'regressed', flips: 1 })
    expect(regressed.cells.at(-2)).toEqual({ trials: 1, passed: 1 })
    expect(regressed.cells.at(-1)).toEqual({ trials: 1, passed: 0 })
    const never = rowOf(tasks, SERIES_TASKS.neverPassed)
    expect(never).toMatchObject({ kind: 'never-passed', flips: 0, direction: null })
    expect(never.cells.every((c) => c!.passed === 0)).toBe(true)
  })

  it('calls tasks that improved once, long before the last run, or never changed, stable', () => {
    const { tasks } = taskHistory(indexed, 'series-bench', 'improving-agent')
    for (const taskId of SERIES_TASKS.improving)
      expect(rowOf(tasks, taskId)).toMatchObject({ kind: 'stable', flips: 1, direction: null })
    for (const taskId of SERIES_TASKS.alwaysPass)
      expect(rowOf(tasks, taskId)).toMatchObject({ kind: 'stable', flips: 0 })
  })

  it('orders rows never-passed, flaky, flipped, stable, by task key within a kind', () => {
    const { tasks } = taskHistory(indexed, 'series-bench', 'improving-agent')
    const stable = [...SERIES_TASKS.alwaysPass, ...SERIES_TASKS.improving].map(key).sort()
    expect(tasks.map((r) => r.taskKey)).toEqual([
      key(SERIES_TASKS.neverPassed),
      key(SERIES_TASKS.flaky),
      key(SERIES_TASKS.regressed),
      ...stable,
    ])
  })

  it('is empty for a benchmark × target the folder has no run of', () => {
    expect(taskHistory(indexed, 'series-bench', 'someone-else')).toEqual({
      benchmark: 'series-bench',
      target: 'someone-else',
      runs: [],
      tasks: [],
    })
  })
})
