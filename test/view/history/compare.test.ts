import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../../src/core/index.ts'
import type { CompareResponse } from '../../../src/view/api.ts'
import type { IndexedRun } from '../../../src/view/catalog/indexed-run.ts'
import { compareRunFolders } from '../../../src/view/history/index.ts'
import { editScores, tempDir } from '../../bundles/fixtures.ts'
import { runCli } from '../../cli/helpers.ts'
import { passes, SERIES_TASKS, writeBundleSeries, type SeriesRun } from '../../support/bundle-series.ts'
import { readIndexedRun } from './indexed-runs.ts'

let work: Awaited<ReturnType<typeof tempDir>>

beforeAll(async () => {
  work = await tempDir('aeo-view-compare-')
})

afterAll(async () => {
  await work.remove()
})

/** A series in its own runs folder, with the IndexedRun of each bundle. */
async function folder(name: string, options: Parameters<typeof writeBundleSeries>[1]) {
  const runsDir = join(work.path, name)
  const runs = await writeBundleSeries(runsDir, options)
  const indexed = await Promise.all(runs.map((r) => readIndexedRun(runsDir, r.runId)))
  return { runsDir, runs, indexed }
}

/** What `agentevalops compare` prints for the two bundles: its --json, and the reason its text form gives. */
async function cliComparison(baseline: SeriesRun, candidate: SeriesRun) {
  const result = await runCli('compare', baseline.dir, candidate.dir, '--json')
  expect(result.stderr).toBe('')
  // The text form's first line is `<verdict> — <reason>`.
  const text = await runCli('compare', baseline.dir, candidate.dir)
  const firstLine = text.lines.join('\n').split('\n')[0]!
  return {
    ...(JSON.parse(result.stdout) as CliJson),
    reason: firstLine.slice(firstLine.indexOf(' — ') + ' — '.length),
  }
}

interface CliJson {
  verdict: string
  pairedTasks: number
  baselineOnly: string[]
  candidateOnly: string[]
  broken: { benchmarkId: string; taskId: string }[]
  overall: {
    delta: number | null
    deltaCi: { lower: number; upper: number } | null
    pValue: number
    test: string
    regressions: { benchmarkId: string; taskId: string; baseline: number; candidate: number }[]
    improvements: { benchmarkId: string; taskId: string }[]
  }
}

function expectSameAsCli(view: CompareResponse, cli: Awaited<ReturnType<typeof cliComparison>>): void {
  const key = (t: { benchmarkId: string; taskId: string }) => `${t.benchmarkId}/${t.taskId}`
  expect(view.verdict).toBe(cli.verdict)
  expect(view.reason).toBe(cli.reason)
  expect(view.pairedTasks).toBe(cli.pairedTasks)
  expect(view.delta).toBe(cli.overall.delta)
  expect(view.deltaCi).toEqual(cli.overall.deltaCi)
  expect(view.pValue).toBe(cli.overall.pValue)
  expect(view.test).toBe(cli.overall.test)
  expect(view.broken.map((t) => t.taskKey).sort()).toEqual(cli.broken.map(key).sort())
  expect([...view.broken, ...view.regressed].map((t) => t.taskKey).sort()).toEqual(
    cli.overall.regressions.map(key).sort(),
  )
  expect(view.improved.map((t) => t.taskKey).sort()).toEqual(cli.overall.improvements.map(key).sort())
  expect([view.baselineOnly, view.candidateOnly]).toEqual([cli.baselineOnly, cli.candidateOnly])
}

describe('compareRunFolders', () => {
  it('compares the last two runs of the 30 as `agentevalops compare` does, the regressed task first', async () => {
    const { runsDir, runs, indexed } = await folder('thirty', {})
    const view = await compareRunFolders(runsDir, indexed[28]!, indexed[29]!)
    expect([view.baseline, view.candidate]).toEqual([runs[28]!.runId, runs[29]!.runId])
    expect([...view.broken, ...view.regressed][0]!.taskKey).toBe(`series-bench/${SERIES_TASKS.regressed}`)
    expect(view.improved.map((t) => t.taskKey)).toEqual([`series-bench/${SERIES_TASKS.flaky}`])
    expectSameAsCli(view, await cliComparison(runs[28]!, runs[29]!))
  })

  it('agrees with the command when tasks have several trials (the permutation test), largest drop first', async () => {
    // In the candidate always-0 passes 3 of 4 trials, always-1 one of 4: drops of 25 and 75 points.
    const passing: Record<string, number> = { 'always-0': 3, 'always-1': 1 }
    const { runsDir, runs, indexed } = await folder('trials', {
      count: 2,
      trials: 4,
      outcome: (taskId, index, trial) =>
        index === 1 && taskId in passing ? trial < passing[taskId]! : passes(taskId, index, 2),
    })
    const view = await compareRunFolders(runsDir, indexed[0]!, indexed[1]!)
    expect(view.test).toBe('permutation')
    // Of two runs, the flaky task fails in the second (as the regressing one): both broken, by task key.
    expect(view.broken.map((t) => t.taskKey)).toEqual([
      `series-bench/${SERIES_TASKS.flaky}`,
      `series-bench/${SERIES_TASKS.regressed}`,
    ])
    expect(view.regressed).toEqual([
      { taskKey: 'series-bench/always-1', baseline: 1, candidate: 0.25 },
      { taskKey: 'series-bench/always-0', baseline: 1, candidate: 0.75 },
    ])
    expectSameAsCli(view, await cliComparison(runs[0]!, runs[1]!))
  })

  it('reads no traces.jsonl: it compares trial records (scores.json) only', async () => {
    const { runsDir, indexed } = await folder('no-traces', { count: 2 })
    for (const run of indexed) await rm(join(runsDir, run.entry.run, 'traces.jsonl'))
    const view = await compareRunFolders(runsDir, indexed[0]!, indexed[1]!)
    expect(view.pairedTasks).toBe(13)
  })

  it('refuses runs of different benchmarks with the refusal of `agentevalops compare`', async () => {
    const a = await folder('mismatch', { count: 1 })
    const b = await folder('mismatch', { count: 1, benchmark: 'other-bench', firstId: 100 })
    const refusal = await compareRunFolders(a.runsDir, a.indexed[0]!, b.indexed[0]!).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(refusal, 'COMPARE_MISMATCH')).toBe(true)
    const cli = await runCli('compare', a.runs[0]!.dir, b.runs[0]!.dir)
    expect(cli.code).toBe(2)
    expect(cli.stderr).toBe(`agentevalops compare: ${(refusal as Error).message}`)
  })

  it('refuses a run the index found invalid, and a file changed since the bundle was sealed', async () => {
    const { runsDir, indexed } = await folder('damaged', { count: 2 })
    const [first, second] = indexed as [IndexedRun, IndexedRun]
    const invalid: IndexedRun = { ...second, entry: { ...second.entry, state: 'invalid' } }
    await expect(compareRunFolders(runsDir, first, invalid)).rejects.toMatchObject({ code: 'BUNDLE_INVALID' })
    await editScores(join(runsDir, second.entry.run), (scores) => {
      scores.trials[0]!.passed = !scores.trials[0]!.passed
    })
    await expect(compareRunFolders(runsDir, first, second)).rejects.toThrow(
      /scores\.json changed since the bundle was sealed/,
    )
  })

  it('refuses a run name that would reach outside the runs folder', async () => {
    const { runsDir, indexed } = await folder('names', { count: 2 })
    const outside: IndexedRun = { ...indexed[1]!, entry: { ...indexed[1]!.entry, run: '../names' } }
    await expect(compareRunFolders(runsDir, indexed[0]!, outside)).rejects.toMatchObject({
      code: 'BUNDLE_NOT_FOUND',
    })
  })
})
