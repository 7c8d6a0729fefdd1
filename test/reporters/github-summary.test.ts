import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendGithubStepSummary, githubStepSummary } from '../../reporters/github-summary.ts'
import type { ScoredTrial } from '../../src/core/index.ts'
import { compareToBaseline } from '../../src/scorers/index.ts'
import { acceptanceTrials, metadataFor, scoredTrial, summarize } from '../reports/fixtures.ts'

function render(
  trials: readonly ScoredTrial[],
  extra: Partial<Parameters<typeof githubStepSummary>[0]> = {},
) {
  return githubStepSummary({
    metadata: metadataFor(trials),
    summary: summarize(trials),
    trials,
    bundleDir: 'runs/run-candidate',
    ...extra,
  })
}

/** 20 tasks of benchmark `toy`, the first `passed` of them passing. */
function run(passed: number, prefix = 't'): ScoredTrial[] {
  return Array.from({ length: 20 }, (_, i) =>
    scoredTrial({ taskId: `${prefix}${String(i).padStart(2, '0')}`, passed: i < passed }),
  )
}

describe('githubStepSummary', () => {
  it('leads with the run, the headline pass rate with its interval, and ends with the bundle path', () => {
    const trials = acceptanceTrials()
    const summary = summarize(trials)
    const text = render(trials)
    const lines = text.split('\n')
    expect(lines[0]).toBe('## agentevalops run run-candidate')
    const ci = summary.headline.primary.ci!
    const interval = `${(ci.lower * 100).toFixed(1)}–${(ci.upper * 100).toFixed(1)}%`
    expect(lines[2]).toBe(
      `**Pass rate: 98.0%** (95% CI ${interval}) over 50 tasks · 490/500 trials passed · cost $5.0000`,
    )
    expect(text.endsWith('Bundle: runs/run-candidate\n')).toBe(true)
    // No baseline, no comparison section.
    expect(text).not.toMatch(/baseline/i)
  })

  it('lists the tasks that never passed', () => {
    const text = render(acceptanceTrials())
    expect(text).toContain('**⚠ 1 task never passed:** toy/broken (0/10)')
  })

  it('gives each benchmark its pass rate, and pools them for one target', () => {
    const trials = [
      ...run(15),
      scoredTrial({ taskId: 'x', benchmark: 'other', passed: false, outcome: 'infra_failure' }),
      scoredTrial({ taskId: 'y', benchmark: 'other', passed: true }),
    ]
    const text = render(trials)
    expect(text).toContain(
      '| Benchmark | Target | Pass rate | 95% CI | Interval | Tasks | Trials | Passed trials | Never passed | With infra failures excluded |',
    )
    expect(text).toMatch(
      /^\| other \| mock-scripted \| 50\.0% \| [\d.]+–[\d.]+% \| Wilson \| 2 \| 2 \| 1 \| 1 \| 100\.0% /m,
    )
    expect(text).toMatch(
      /^\| toy \| mock-scripted \| 75\.0% \| [\d.]+–[\d.]+% \| Wilson \| 20 \| 20 \| 15 \| 5 \| 75\.0% /m,
    )
    expect(text).toMatch(/^\*\*Pass rate over all 2 benchmarks of mock-scripted: 72\.7%\*\* \(95% CI /m)
  })

  it('gives each benchmark × target its row and no pooled pass rate when targets differ', () => {
    const trials = [
      ...run(15),
      ...run(2).map((t) => ({
        ...t,
        benchmark: { ...t.benchmark, id: 'toy@weak' },
        runner: { ...t.runner, name: 'weak' },
      })),
    ]
    const text = render(trials)
    expect(text).toMatch(/^\| toy \| mock-scripted \| 75\.0% \|/m)
    expect(text).toMatch(/^\| toy@weak \| weak \| 10\.0% \|/m)
    expect(text).not.toContain('**Pass rate')
    expect(text).toContain('> No pooled pass rate: 2 targets ran')
    expect(text).toContain('17/40 trials passed')
  })

  it('states the verdict against the baseline and lists the regressed tasks, worst first', () => {
    const benchmarks = metadataFor([]).benchmarks
    const candidate = run(10)
    const comparison = compareToBaseline(
      { runId: 'run-base', benchmarks, trials: run(20) },
      { runId: 'run-cand', benchmarks, trials: candidate },
    )
    expect(comparison.verdict).toBe('NO_GO')
    const text = render(candidate, { summary: { ...summarize(candidate), comparison } })
    expect(text).toContain('**❌ NO_GO** against baseline run-base')
    expect(text).toContain('### Baseline run-base: NO_GO')
    // The reason, inert: its `<` would open an HTML tag.
    expect(comparison.overall.reason).toContain('<')
    expect(text).toContain(comparison.overall.reason.replace('<', '&lt;'))
    expect(text).not.toContain('Also regressed')
    expect(text).toContain('**Regressed tasks** (10; pass rate, baseline → this run):')
    const listed = text.split('\n').filter((l) => l.startsWith('- toy/'))
    expect(listed).toHaveLength(10)
    expect(listed).toContain('- toy/t10: 100.0% → 0.0%')
    expect(listed).toContain('- toy/t19: 100.0% → 0.0%')
    expect(listed).not.toContain('- toy/t09: 100.0% → 0.0%')
    // One trial a task: every regressed task went 1/1 → 0/1, so each is broken too.
    expect(text).toContain(
      '**Broken tasks** (10; always passed in the baseline, never pass now): toy/t10 (1/1 → 0/1), toy/t11 (1/1 → 0/1),',
    )
  })

  it("names the tasks behind an evaluator's NO_GO that the pass rate does not show", () => {
    const benchmarks = metadataFor([]).benchmarks
    const judged = (bad: number) =>
      Array.from({ length: 20 }, (_, i) =>
        scoredTrial({
          taskId: `t${String(i).padStart(2, '0')}`,
          passed: true,
          named: { judge: i < bad ? 0 : 1 },
        }),
      )
    const candidate = judged(10)
    const comparison = compareToBaseline(
      { runId: 'run-base', benchmarks, trials: judged(0) },
      { runId: 'run-cand', benchmarks, trials: candidate },
    )
    expect(comparison.overall.regressions).toEqual([])
    expect(comparison.verdict).toBe('NO_GO')
    const text = render(candidate, { summary: { ...summarize(candidate), comparison } })
    expect(text).toContain('No paired task got worse.')
    const line = text.split('\n').find((l) => l.startsWith('Also regressed on evaluator judge: '))
    const names = line?.slice('Also regressed on evaluator judge: '.length).split(', ')
    expect(names?.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `toy/t0${i}`))
  })

  it('says so when no paired task got worse', () => {
    const benchmarks = metadataFor([]).benchmarks
    const candidate = run(20)
    const comparison = compareToBaseline(
      { runId: 'run-base', benchmarks, trials: run(20) },
      { runId: 'run-cand', benchmarks, trials: candidate },
    )
    const text = render(candidate, { summary: { ...summarize(candidate), comparison } })
    expect(text).toContain(`against baseline run-base`)
    expect(text).toContain('No paired task got worse.')
  })

  it('makes task ids, benchmark ids and paths inert markdown', () => {
    const hostile = '<img src=x onerror=alert(1)>[click](https://evil.example)`|'
    const trials = [
      scoredTrial({ taskId: hostile, benchmark: 'b<script>', passed: false }),
      scoredTrial({ taskId: 'fine', benchmark: 'b<script>', passed: true }),
    ]
    const text = render(trials, { bundleDir: 'runs/![x](https://evil.example/p.png)' })
    expect(text).not.toContain('<img')
    expect(text).not.toContain('<script>')
    expect(text).not.toMatch(/(?<!\\)\]\(https:/)
    expect(text).toContain('&lt;img src=x onerror=alert(1)&gt;\\[click\\]\\(https://evil.example)\\`\\|')
    expect(text).toMatch(/^\| b&lt;script&gt; \| mock-scripted \| 50\.0% \|/m)
    expect(text).toContain('Bundle: runs/!\\[x\\]\\(https://evil.example/p.png)')
  })

  it('flags an interrupted run', () => {
    const trials = run(5)
    const text = render(trials, { metadata: { ...metadataFor(trials), status: 'interrupted' } })
    expect(text).toContain('> **Interrupted run:** only the trials that finished are counted.')
  })

  it('says a merged bundle holds every shard of the run', () => {
    const trials = run(5)
    const text = render(trials, { metadata: { ...metadataFor(trials), mergedFrom: ['s1', 's2', 's3'] } })
    expect(text).toContain('> **Merged** from 3 shards: every trial of the run.')
    expect(render(trials)).not.toContain('Merged')
  })
})

describe('appendGithubStepSummary', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aeo-gh-summary-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('appends to the GITHUB_STEP_SUMMARY file inside GitHub Actions, after what is there', async () => {
    const file = join(dir, 'step_summary.md')
    await writeFile(file, '## Vitest\n')
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file }
    expect(await appendGithubStepSummary(env, '## agentevalops run a\n')).toBeNull()
    expect(await appendGithubStepSummary(env, '## agentevalops run b')).toBeNull()
    expect(await readFile(file, 'utf8')).toBe('## Vitest\n\n## agentevalops run a\n\n## agentevalops run b\n')
  })

  it('writes nothing outside GitHub Actions', async () => {
    const file = join(dir, 'step_summary.md')
    for (const GITHUB_ACTIONS of [undefined, 'false', '1', 'TRUE']) {
      expect(await appendGithubStepSummary({ GITHUB_ACTIONS, GITHUB_STEP_SUMMARY: file }, 'x')).toBeNull()
    }
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('returns why it could not write instead of throwing', async () => {
    // A folder cannot be appended to.
    const message = await appendGithubStepSummary({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: dir }, 'x')
    expect(message).toMatch(
      /^agentevalops: could not append the job summary to .*aeo-gh-summary-.*: .*EISDIR/,
    )
  })

  it('does nothing when Actions gives no summary file', async () => {
    expect(await appendGithubStepSummary({ GITHUB_ACTIONS: 'true' }, 'x')).toBeNull()
  })
})
