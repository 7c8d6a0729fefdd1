import { describe, expect, it } from 'vitest'
import { consoleSummary } from '../../reporters/console-summary.ts'
import { githubStepSummary } from '../../reporters/github-summary.ts'
import { RunSummary, type TrialRecord } from '../../src/core/index.ts'
import type { PageData } from '../../src/reports/html/index.ts'
import { renderHtmlReport, renderMarkdownReport } from '../../src/reports/index.ts'
import { headlineModel } from '../../src/reports/headline-model.ts'
import { withGroupedHeadline } from '../../src/scorers/index.ts'
import { makeEvents } from '../bundles/fixtures.ts'
import { metadataFor, scoredTrial, section, summarize, tableRows } from './fixtures.ts'

/** `count` one-trial tasks of `benchmark` run by `runner`, the first `passed` of them passing. */
function tasks(benchmark: string, runner: string, count: number, passed: number): TrialRecord[] {
  return Array.from({ length: count }, (_, i) =>
    scoredTrial({ taskId: `t${String(i).padStart(3, '0')}`, benchmark, runner, passed: i < passed }),
  )
}

/** The shape of the repo's own `npm run evals`: one dataset under three runners, and a toy benchmark. */
function mixedRun(): TrialRecord[] {
  return [
    ...tasks('humaneval', 'humaneval-oracle', 164, 164),
    ...tasks('humaneval@empty', 'humaneval-empty', 164, 0),
    ...tasks('humaneval@weak', 'humaneval-weak', 164, 66),
    ...tasks('toy', 'mock-scripted', 18, 6),
  ]
}

function pageData(trials: readonly TrialRecord[]): PageData {
  const html = renderHtmlReport({
    metadata: metadataFor(trials),
    trials,
    summary: summarize(trials),
    events: trials.flatMap((t) => makeEvents(t)),
  })
  const match = /<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html)
  return JSON.parse(match![1]!) as PageData
}

describe('the headline of a run that mixes benchmarks and targets', () => {
  it('has one figure per benchmark × target, each with its own Wilson interval, and no pooled one', () => {
    const { headline } = summarize(mixedRun())
    expect(headline.pooled).toBe(false)
    expect(headline.groups?.map((g) => [g.benchmarkId, g.target.name, g.primary.tasks, g.passed])).toEqual([
      ['humaneval', 'humaneval-oracle', 164, 164],
      ['humaneval@empty', 'humaneval-empty', 164, 0],
      ['humaneval@weak', 'humaneval-weak', 164, 66],
      ['toy', 'mock-scripted', 18, 6],
    ])
    const weak = headline.groups![2]!
    expect(weak.primary.rate).toBeCloseTo(66 / 164, 12)
    expect(weak.primary.method).toBe('wilson')
    expect(weak.primary.ci!.lower).toBeLessThan(66 / 164)
    expect(weak.primary.ci!.upper).toBeGreaterThan(66 / 164)
    expect(headline.groups![1]!.neverPassed).toBe(164)
  })

  it('pools one target over several benchmarks', () => {
    const { headline } = summarize([...tasks('a', 'agent', 10, 5), ...tasks('b', 'agent', 10, 10)])
    expect(headline.pooled).toBe(true)
    expect(headline.groups).toHaveLength(2)
    expect(headline.primary.rate).toBeCloseTo(0.75, 12)
  })

  it('tells one runner name with other settings apart as another target', () => {
    const trials = [
      ...tasks('a', 'agent', 4, 4),
      ...tasks('b', 'agent', 4, 0).map((t) => ({
        ...t,
        runner: { ...t.runner, config: { temperature: 1 } },
      })),
    ]
    const summary = summarize(trials)
    expect(summary.headline.groups).toHaveLength(2)
    expect(summary.headline.pooled).toBe(false)
    // Each row names the setting that tells the two apart, and only that.
    expect(headlineModel(summary).rows.map((r) => r.target)).toEqual([
      'agent (temperature=(unset))',
      'agent (temperature=1)',
    ])
  })

  it('prints one console line per group and no pooled rate', () => {
    const trials = mixedRun()
    const lines = consoleSummary(trials, summarize(trials), 'runs/r').split('\n')
    const rateLines = lines.filter((l) => / pass rate /.test(l))
    expect(rateLines).toEqual([
      expect.stringMatching(
        /^agentevalops: humaneval · humaneval-oracle: 100\.0% pass rate \(95% CI [\d.]+–100\.0%\) over 164 tasks$/,
      ),
      expect.stringMatching(
        /^agentevalops: humaneval@empty · humaneval-empty: 0\.0% pass rate \(95% CI 0\.0–[\d.]+%\) over 164 tasks$/,
      ),
      expect.stringMatching(/^agentevalops: humaneval@weak · humaneval-weak: 40\.2% pass rate /),
      expect.stringMatching(/^agentevalops: toy · mock-scripted: 33\.3% pass rate /),
    ])
    expect(lines).toContain(
      'agentevalops: No pooled pass rate: 4 targets ran, and a rate over different agents describes none of them.',
    )
    // 236/510 is a count; 46.3% of it would be the pooled rate again.
    expect(lines.at(-1)).toBe('agentevalops: 236/510 trials passed · bundle runs/r')
  })

  it('prints the pooled line for one target over several benchmarks', () => {
    const trials = [...tasks('a', 'agent', 10, 5), ...tasks('b', 'agent', 10, 10)]
    const lines = consoleSummary(trials, summarize(trials), 'runs/r').split('\n')
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^agentevalops: all 2 benchmarks of agent: 75\.0% pass rate \(95% CI [\d.]+–[\d.]+%\) over 20 tasks$/,
      ),
    )
    expect(lines.at(-1)).toBe('agentevalops: 15/20 trials passed (75.0%) · bundle runs/r')
  })

  it('shows the same rows in report.md, report.html and the job summary', () => {
    const trials = mixedRun()
    const summary = summarize(trials)
    const metadata = metadataFor(trials)
    const overall = section(renderMarkdownReport({ metadata, trials, summary }), 'Overall')
    const job = githubStepSummary({ metadata, summary, trials, bundleDir: 'runs/r' })
    const html = pageData(trials).headline

    const expected = summary.headline.groups!.map((g) => [
      g.benchmarkId,
      g.target.name,
      `${(g.primary.rate! * 100).toFixed(1)}%`,
      `${(g.primary.ci!.lower * 100).toFixed(1)}–${(g.primary.ci!.upper * 100).toFixed(1)}%`,
    ])
    expect(tableRows(overall).map((r) => r.slice(0, 4))).toEqual(expected)
    expect(tableRows(job).map((r) => r.slice(0, 4))).toEqual(expected)
    expect(html.groups!.rows.map((r) => r.t.slice(0, 4))).toEqual(expected)

    for (const text of [overall, job]) {
      expect(text).not.toContain('**Pass rate')
      expect(text).not.toContain('46.3%')
      expect(text).toContain('No pooled pass rate: 4 targets ran')
    }
    expect(html.pooled).toBe(false)
    expect(html.note).toContain('No pooled pass rate: 4 targets ran')
  })

  it('keeps the single headline of a run of one benchmark and one target', () => {
    const trials = tasks('toy', 'agent', 10, 7)
    const summary = summarize(trials)
    const overall = section(
      renderMarkdownReport({ metadata: metadataFor(trials), trials, summary }),
      'Overall',
    )
    expect(overall).toMatch(
      /^\*\*Pass rate: 70\.0%\*\* \(95% CI [\d.]+–[\d.]+%, Wilson; 10 tasks, 10 trials;/m,
    )
    expect(overall).not.toContain('| Benchmark |')
    expect(pageData(trials).headline.groups).toBeNull()
  })

  it('groups the headline of a summary written before groups existed, from its trials', () => {
    const trials = mixedRun()
    const { groups: _groups, pooled: _pooled, ...legacy } = summarize(trials).headline
    const old = RunSummary.parse({ ...summarize(trials), headline: legacy })
    expect(old.headline.groups).toBeUndefined()
    const upgraded = withGroupedHeadline(old, trials)
    expect(upgraded.headline.groups).toHaveLength(4)
    expect(upgraded.headline.pooled).toBe(false)
  })
})
