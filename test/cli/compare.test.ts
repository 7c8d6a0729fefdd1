import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeBundle } from '../../src/bundles/index.ts'
import type { TrialRecord } from '../../src/core/index.ts'
import { bundleInput, FIXTURE_BENCHMARK, makeSummary, tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'

const TASKS = Array.from({ length: 20 }, (_, i) => `task-${String(i).padStart(2, '0')}`)
let work: { path: string; remove: () => Promise<void> }

/** A bundle of 20 one-trial tasks in `folder` whose listed tasks fail; benchmark id and checksum adjustable. */
async function bundle(
  folder: string,
  runId: string,
  failing: readonly number[],
  benchmark?: { id: string; datasetChecksum: string },
): Promise<string> {
  const dir = join(work.path, folder, runId)
  await mkdir(dir, { recursive: true })
  const benchmarks = benchmark ? [{ ...FIXTURE_BENCHMARK, ...benchmark }] : undefined
  const input = await bundleInput(dir, { runId, tasks: TASKS, trials: 1, benchmarks })
  const trials: TrialRecord[] = input.trials.map((t, i) => {
    if (!failing.includes(i)) return t
    // Failed in its score too: validate-bundle holds an outcome to what the record's scores make it.
    const scores = t.scores.map((s) => ({ ...s, score: 0, passed: false }))
    return {
      ...t,
      passed: false,
      outcome: 'failed',
      scores,
      result: t.result && { ...t.result, success: false },
    }
  })
  return writeBundle({
    ...input,
    runsDir: join(work.path, folder, 'runs'),
    trials,
    summary: makeSummary(trials),
  })
}

const ids = (n: number) => `0190f5a0-1c2d-7e3f-8a4b-${String(n).padStart(12, '0')}`
let base: string
let same: string
let worse: string
let other: string
let changed: string

beforeAll(async () => {
  work = await tempDir('aeo-compare-')
  base = await bundle('a', ids(1), [])
  same = await bundle('a', ids(2), [])
  worse = await bundle('a', ids(3), [0, 1, 2, 3, 4, 5, 6, 7])
  other = await bundle('b', ids(4), [], { id: 'other-bench', datasetChecksum: 'a'.repeat(64) })
  changed = await bundle('c', ids(5), [], { id: 'toy', datasetChecksum: 'f'.repeat(64) })
})

afterAll(async () => {
  await work.remove()
})

describe('agentevalops compare', () => {
  it('says NO_GO and exits 1 for 8 regressions out of 20, listing them', async () => {
    const r = await runCli('compare', base, worse)
    expect(r.code, r.stderr).toBe(1)
    expect(r.lines[0]).toMatch(/^NO_GO — dropped 40\.0 pp \(8 regressions, 0 improvements; p = 0\.00781/)
    expect(r.stdout).toContain('paired tasks 20')
    expect(r.stdout).toMatch(/regressed \(8\):\n {2}toy\/task-00 {2}100\.0% → 0\.0%/)
  })

  it('says INSUFFICIENT_EVIDENCE for the same results over 20 tasks, and GO once the bound is within --max-drop', async () => {
    // 0 regressions in 20: up to 1 − 0.05^(1/20) = 13.9% of tasks could regress (scipy beta.ppf(0.95, 1, 20)).
    const r = await runCli('compare', base, same)
    expect(r.code, r.stderr).toBe(0)
    expect(r.lines[0]).toMatch(
      /^INSUFFICIENT_EVIDENCE — change \+0\.0 pp .*up to 13\.9% of tasks could regress/,
    )
    const loose = await runCli('compare', base, same, '--max-drop', '0.15')
    expect(loose.lines[0]).toMatch(/^GO — change \+0\.0 pp/)
  })

  it('prints the comparison as JSON with --json', async () => {
    const r = await runCli('compare', base, worse, '--json')
    const parsed = JSON.parse(r.stdout) as { verdict: string; overall: { mcnemar: { regressions: number } } }
    expect(parsed.verdict).toBe('NO_GO')
    expect(parsed.overall.mcnemar.regressions).toBe(8)
  })

  it('takes latest as the newest other complete bundle beside the candidate', async () => {
    const r = await runCli('compare', 'latest', worse, '--json')
    const parsed = JSON.parse(r.stdout) as { baseline: { runId: string } }
    // ids(2) and ids(1) share finishedAt; the larger run id (the newer UUIDv7) wins.
    expect(parsed.baseline.runId).toBe(ids(2))
  })

  it('takes --max-drop and --min-pairs', async () => {
    const r = await runCli('compare', base, worse, '--min-pairs', '30')
    expect(r.code).toBe(0)
    expect(r.lines[0]).toMatch(/^INSUFFICIENT_EVIDENCE — 20 paired tasks; at least 30 are needed/)
  })

  it('refuses bundles of different benchmarks (exit 2), unless --force', async () => {
    const r = await runCli('compare', base, other)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(
      /not comparable: benchmark other-bench is not in the baseline \(it has toy\).*--force/,
    )
    const forced = await runCli('compare', base, other, '--force')
    expect(forced.code).toBe(0)
    expect(forced.lines[0]).toMatch(/^INSUFFICIENT_EVIDENCE — 0 paired tasks/)
  })

  it('compares a changed dataset over the tasks both runs share, and says so', async () => {
    const d = await runCli('compare', base, changed)
    expect(d.code, d.stderr).toBe(0)
    expect(d.stdout).toContain('paired tasks 20')
    expect(d.stdout).toContain(
      'dataset of toy changed since the baseline: only the tasks both runs share are compared',
    )
  })

  it('lists broken tasks, and exits 1 on them with --fail-on-broken', async () => {
    const two = await bundle('a', ids(6), [3, 9])
    const r = await runCli('compare', base, two)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      /broken \(2\) — always passed in the baseline, never pass now; --fail-on-broken fails on them:\n {2}toy\/task-03 {2}1\/1 → 0\/1\n {2}toy\/task-09 {2}1\/1 → 0\/1/,
    )
    const strict = await runCli('compare', base, two, '--fail-on-broken')
    expect(strict.code, strict.stderr).toBe(1)
    expect(strict.lines[0]).toMatch(
      /^NO_GO — 2 broken tasks \(always passed in the baseline, never pass now: /,
    )
  })

  it('says what is wrong with its arguments (exit 2) and with a missing bundle (exit 1)', async () => {
    expect((await runCli('compare', base)).code).toBe(2)
    const bad = await runCli('compare', base, worse, '--max-drop', '5')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--max-drop must be a fraction in [0, 1)')
    const missing = await runCli('compare', join(work.path, 'nowhere'), worse)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/no bundle folder at/)
  })
})
