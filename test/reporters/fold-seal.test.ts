import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workerLogPath, type TrialRecord } from '../../src/core/index.ts'
import { renderMarkdownReport } from '../../src/reports/index.ts'
import { MAX_FINDING_ROWS, MAX_TRIAL_ROWS } from '../../src/reports/sections/trials.ts'
import { consoleSummary } from '../../reporters/console-summary.ts'
import { writeSortedParts } from '../../reporters/fold-seal.ts'
import { RunFold } from '../../reporters/run-fold.ts'
import { SealTally } from '../../reporters/seal-tally.ts'
import { reportTrial, SlimTrials } from '../../reporters/slim-trial.ts'
import { DEFAULT_SUMMARY_SETTINGS } from '../../src/scorers/index.ts'
import { makeEvents, makeMetadata, makeSummary, makeTrials, RUN_ID } from '../bundles/fixtures.ts'

let staging: string
beforeEach(async () => {
  staging = await mkdtemp(join(tmpdir(), 'aeo-fold-seal-'))
})
afterEach(async () => {
  await rm(staging, { recursive: true, force: true })
})

/**
 * `tasks` trials per benchmark, none simply passing: a third fail their score with a finding, a third pass with a
 * finding on a passing score, a third break a policy with clean scores (no finding row).
 */
function failingRun(tasks: number): TrialRecord[] {
  const ids = Array.from({ length: tasks }, (_, i) => `task-${String(i).padStart(5, '0')}`)
  const benchmarks = [
    { id: 'alpha', version: '1', datasetChecksum: 'a'.repeat(64) },
    { id: 'beta', version: '1', datasetChecksum: 'b'.repeat(64) },
  ]
  return makeTrials({ runId: RUN_ID, tasks: ids, trials: 1, benchmarks }).map((record, i) => {
    const score = { ...record.scores[0]! }
    const verdict = { ...record.verdicts[0]! }
    const finding = { type: 'mismatch', message: `finding of trial ${i}`, citations: [1] }
    if (i % 3 === 0) Object.assign(score, { passed: false, score: 0, findings: [finding] })
    if (i % 3 === 1) Object.assign(score, { findings: [finding] })
    if (i % 3 === 2) {
      verdict.verdict = 'FAIL'
      verdict.findings = [{ message: `tool rm of trial ${i}`, severity: 'FAIL', citations: [2] }]
    }
    const passed = i % 3 === 1
    return {
      ...record,
      passed,
      outcome: passed ? 'passed' : i % 3 === 0 ? 'failed' : 'policy_violation',
      scores: [score],
      verdicts: [verdict],
    }
  })
}

async function foldAndSort(records: readonly TrialRecord[]) {
  const dir = await mkdtemp(join(staging, 'run-'))
  const log = workerLogPath(dir, process.pid, 1)
  await mkdir(dirname(log), { recursive: true })
  let text = ''
  for (const record of records) {
    for (const event of makeEvents(record)) text += `${JSON.stringify({ event })}\n`
    text += `${JSON.stringify({ record })}\n`
  }
  await appendFile(log, text)
  const fold = await RunFold.open(dir, RUN_ID)
  await fold.caughtUp()
  const sorted = [...fold.index.sorted()]
  const tally = new SealTally(RUN_ID, DEFAULT_SUMMARY_SETTINGS, { keepSlims: true })
  const parts = await writeSortedParts(fold, sorted, [], tally)
  await parts.abandon()
  await fold.close()
  return { tally, sorted }
}

const bundleOrder = (records: readonly TrialRecord[]) =>
  [...records].sort((a, b) =>
    `${a.benchmark.id}\u0000${a.taskId}` < `${b.benchmark.id}\u0000${b.taskId}` ? -1 : 1,
  )

describe('writeSortedParts over a run whose agent fails everything', () => {
  it("keeps report.md's rows only for the trials it shows row by row, however many there are", async () => {
    const { tally } = await foldAndSort(failingRun(900))
    expect(tally.count).toBe(1800)
    const benchmarks = [...tally.report.benchmarks.values()]
    expect(benchmarks.map((b) => [b.id, b.notPassed, b.findingRows])).toEqual([
      ['alpha', 600, 600],
      ['beta', 600, 600],
    ])
    for (const b of benchmarks) {
      expect(b.notPassedRows).toHaveLength(MAX_TRIAL_ROWS)
      expect(b.findings).toHaveLength(MAX_FINDING_ROWS)
    }
  })

  it('renders the same report.md, summary and console summary as from every whole record', async () => {
    for (const tasks of [40, 900]) {
      const records = failingRun(tasks)
      const { tally } = await foldAndSort(records)
      const summary = makeSummary(records)
      const metadata = makeMetadata(records)
      const sortedRecords = bundleOrder(records)
      expect(renderMarkdownReport({ metadata, trials: tally.report, summary })).toBe(
        renderMarkdownReport({ metadata, trials: sortedRecords, summary }),
      )
      expect(JSON.stringify(tally.wholeSummary())).toBe(JSON.stringify(summary))
      expect(consoleSummary(tally.slims.map(reportTrial), summary, 'runs/x')).toBe(
        consoleSummary(sortedRecords, summary, 'runs/x'),
      )
    }
  })
})

describe('writeSortedParts and the slim forms', () => {
  it("makes every trial's slim form from its spilled record, in bundle order, equal objects shared", async () => {
    const records = failingRun(60)
    const { tally } = await foldAndSort(records)
    const expected = bundleOrder(records).map((r) => new SlimTrials(RUN_ID).of(r))
    expect(tally.slims).toEqual(expected)
    expect(new Set(tally.slims.map((s) => s.runner)).size).toBe(1)
    expect(new Set(tally.slims.map((s) => s.benchmark)).size).toBe(2)
    expect(tally.targets).toEqual([records[0]!.runner])
    expect(tally.benchmarks.map((b) => b.id)).toEqual(['alpha', 'beta'])
  })

  it('keeps no slim form when asked not to, and checks the keys as they pass, foreign run ids included', async () => {
    const records = failingRun(10).map((r, i) => (i === 3 ? { ...r, runId: 'other-run' } : r))
    const dir = await mkdtemp(join(staging, 'run-'))
    const log = workerLogPath(dir, process.pid, 1)
    await mkdir(dirname(log), { recursive: true })
    await appendFile(
      log,
      records
        .map((record) =>
          [...makeEvents(record).map((event) => ({ event })), { record }]
            .map((l) => `${JSON.stringify(l)}\n`)
            .join(''),
        )
        .join(''),
    )
    const fold = await RunFold.open(dir, RUN_ID)
    await fold.caughtUp()
    const sorted = [...fold.index.sorted()]
    const tally = new SealTally(RUN_ID, DEFAULT_SUMMARY_SETTINGS, { keepSlims: false })
    await (await writeSortedParts(fold, sorted, [], tally)).abandon()
    await fold.close()
    expect(tally.slims).toEqual([])
    const expected = bundleOrder(records)
    expect(sorted.map((k) => [k.benchmarkId, k.taskId, k.trial])).toEqual(
      expected.map((r) => [r.benchmark.id, r.taskId, r.trial]),
    )
    // The keys were checked as they passed: the one foreign run id is said, with its place in bundle order.
    expect(tally.keys.count).toBe(records.length)
    const foreign = expected.findIndex((r) => r.runId === 'other-run')
    expect(tally.keys.findings.toArray().map((f) => f.message)).toEqual([
      expect.stringMatching(new RegExp(`^trials\\[${foreign}\\] .* has runId "other-run"`)),
    ])
  })
})
