import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GroupFigure } from '../../../src/view/api.ts'
import type { IndexedRun } from '../../../src/view/catalog/indexed-run.ts'
import { taskHistory, trendSeries } from '../../../src/view/history/index.ts'
import { tempDir } from '../../bundles/fixtures.ts'
import { passes, SERIES_TASKS, writeBundleSeries } from '../../support/bundle-series.ts'
import { readIndexedRuns } from './indexed-runs.ts'

let work: Awaited<ReturnType<typeof tempDir>>

beforeAll(async () => {
  work = await tempDir('aeo-history-edges-')
})

afterAll(async () => {
  await work.remove()
})

async function series(name: string, options: Parameters<typeof writeBundleSeries>[1]) {
  const runsDir = join(work.path, name)
  await writeBundleSeries(runsDir, options)
  return readIndexedRuns(runsDir)
}

const BENCH = 'series-bench'
const TARGET = 'improving-agent'
const key = (taskId: string) => `${BENCH}/${taskId}`

/** A copy of `run` under another name, started `hours` after it, with `change` applied to its entry. */
function copyOf(run: IndexedRun, name: string, hours: number, change: Partial<IndexedRun['entry']> = {}) {
  const startedAt = new Date(Date.parse(run.entry.startedAt!) + hours * 3_600_000).toISOString()
  return { ...run, entry: { ...run.entry, run: name, runId: name, startedAt, ...change } }
}

describe('history edge cases', () => {
  it('a series of one run: one point, no task flipped, no change counted', async () => {
    const runs = await series('one', { count: 1 })
    const trends = trendSeries(runs)
    expect(trends).toHaveLength(1)
    expect(trends[0]!.points).toHaveLength(1)
    expect(trends[0]!.points[0]).toMatchObject({ verdict: null, baseline: null })
    const history = taskHistory(runs, BENCH, TARGET)
    expect(history.runs).toHaveLength(1)
    expect(history.tasks.every((t) => t.flips === 0 && t.direction === null)).toBe(true)
    // Of one run, whatever passed is stable and whatever failed never passed.
    for (const row of history.tasks)
      expect(row.kind).toBe(passes(row.taskId, 0, 1) ? 'stable' : 'never-passed')
  })

  it('runs without a task have null cells, and changes are counted over the runs that had it', async () => {
    const runs = await series('missing', {
      count: 6,
      omit: { 0: [SERIES_TASKS.neverPassed], 2: [SERIES_TASKS.flaky], 5: [SERIES_TASKS.regressed] },
    })
    const history = taskHistory(runs, BENCH, TARGET)
    const row = (taskId: string) => history.tasks.find((t) => t.taskKey === key(taskId))!
    // Flaky passes in runs 0, 2, 3, 5 and fails in 1, 4; without run 2: P F · P F P, four changes.
    expect(row(SERIES_TASKS.flaky).cells[2]).toBeNull()
    expect(row(SERIES_TASKS.flaky)).toMatchObject({ kind: 'flaky', flips: 4 })
    // It would have failed in the last run, which does not have it: nothing changed in the runs that did.
    expect(row(SERIES_TASKS.regressed).cells[5]).toBeNull()
    expect(row(SERIES_TASKS.regressed)).toMatchObject({ kind: 'stable', flips: 0, direction: null })
    expect(row(SERIES_TASKS.neverPassed).cells[0]).toBeNull()
    expect(row(SERIES_TASKS.neverPassed).kind).toBe('never-passed')
    expect(trendSeries(runs)[0]!.points.map((p) => p.tasks)).toEqual([12, 13, 12, 13, 13, 12])
  })

  it('a run split on a task (some trials passed) makes it flaky, even when it is the only change', async () => {
    const runs = await series('split', {
      count: 3,
      trials: 2,
      outcome: (taskId, index, trial) =>
        taskId === 'always-0' ? index < 2 || trial === 0 : passes(taskId, index, 3),
    })
    const row = taskHistory(runs, BENCH, TARGET).tasks.find((t) => t.taskKey === key('always-0'))!
    expect(row.cells).toEqual([
      { trials: 2, passed: 2 },
      { trials: 2, passed: 2 },
      { trials: 2, passed: 1 },
    ])
    expect(row).toMatchObject({ kind: 'flaky', flips: 1, direction: null })
  })

  it('leaves invalid, live, interrupted and shard runs out of trends and history', async () => {
    const runs = await series('skipped', { count: 3 })
    const last = runs[2]!
    const others = [
      copyOf(last, 'invalid-run', 1, { state: 'invalid', problems: ['manifest.json: is missing'] }),
      copyOf(last, 'live-run', 2, { state: 'live', status: 'running' }),
      copyOf(last, 'interrupted-run', 3, { status: 'interrupted' }),
      copyOf(last, 'shard-run', 4, { status: 'partial-shard' }),
      copyOf(last, 'no-start', 5, { startedAt: null }),
    ]
    const all = [...others, ...runs]
    const names = runs.map((r) => r.entry.run)
    expect(trendSeries(all)[0]!.points.map((p) => p.run)).toEqual(names)
    expect(taskHistory(all, BENCH, TARGET).runs).toEqual(names)
  })

  it("lists a run whose benchmark had several targets apart: its task counts are not this target's alone", async () => {
    const runs = await series('pooled', { count: 2 })
    const last = runs[1]!
    const other: GroupFigure = { ...last.entry.groups[0]!, target: 'other-agent', rate: 0.1 }
    const pooled = copyOf(last, 'pooled-run', 1, { groups: [last.entry.groups[0]!, other] })
    pooled.targetsByBenchmark = { [BENCH]: [TARGET, 'other-agent'] }
    const all = [pooled, ...runs]
    // Its figure for this target is its own (scores.json groups the headline by target): it is on the trend.
    const trends = trendSeries(all)
    expect(trends.map((s) => s.target)).toEqual(['improving-agent', 'other-agent'])
    expect(trends[0]!.points.map((p) => p.run)).toEqual([...runs.map((r) => r.entry.run), 'pooled-run'])
    const history = taskHistory(all, BENCH, TARGET)
    expect(history.runs).toEqual(runs.map((r) => r.entry.run))
    expect(history.pooledRuns).toEqual(['pooled-run'])
  })

  it('orders series by benchmark then target, and points by start then run id, whatever order the runs come in', async () => {
    const a = await series('order-a', { count: 2, benchmark: 'zeta', target: 'b-agent' })
    const b = await series('order-b', { count: 2, benchmark: 'alpha', target: 'b-agent', firstId: 10 })
    const c = await series('order-c', { count: 2, benchmark: 'alpha', target: 'a-agent', firstId: 20 })
    // Two runs that started together: the run id decides.
    const tie = copyOf(c[1]!, 'zz-tie', 0)
    const runs = [...a, ...b, ...c, tie]
    const expected = trendSeries(runs)
    expect(expected.map((s) => `${s.benchmark} ${s.target}`)).toEqual([
      'alpha a-agent',
      'alpha b-agent',
      'zeta b-agent',
    ])
    expect(expected[0]!.points.map((p) => p.run)).toEqual([c[0]!.entry.run, c[1]!.entry.run, 'zz-tie'])
    expect(trendSeries([...runs].reverse())).toEqual(expected)
  })
})
