import { describe, expect, it } from 'vitest'
import type { ScoredTrial } from '../../src/core/index.ts'
import { escapeCell, renderMarkdownReport } from '../../src/reports/index.ts'
import { MAX_TRIAL_ROWS } from '../../src/reports/sections/trials.ts'
import { compareToBaseline } from '../../src/scorers/index.ts'
import { makeMetadata, makeTrials } from '../bundles/fixtures.ts'
import {
  acceptanceTrials,
  metadataFor,
  scoredTrial,
  section,
  summarize,
  tableRows,
  taskTrials,
} from './fixtures.ts'

/** The bundle fixture: 3 tasks × 2 trials (categories arithmetic and tools), one failed, one policy violation. */
function fixture(tasks?: string[]) {
  const trials = makeTrials(tasks ? { tasks } : {})
  return { metadata: makeMetadata(trials), trials, summary: summarize(trials) }
}

function report(trials: readonly ScoredTrial[], extra: Partial<ReturnType<typeof summarize>> = {}): string {
  return renderMarkdownReport({
    metadata: metadataFor(trials),
    trials,
    summary: { ...summarize(trials), ...extra },
  })
}

/** No figure may leak as NaN, null or undefined (pass@k's "undefined (N tasks have fewer than k trials)" apart). */
function expectNoLeaks(text: string): void {
  expect(text).not.toMatch(/NaN|null|Infinity/)
  expect(text.replace(/undefined \(\d+ tasks? ha(s|ve) fewer than \d+ trials\)/g, '')).not.toContain(
    'undefined',
  )
}

/** A run of `tasks` tasks with one trial each, the first `passed` of them passing. */
function singleTrialRun(tasks: number, passed: number, runId: string): ScoredTrial[] {
  return Array.from({ length: tasks }, (_, i) =>
    scoredTrial({ taskId: `t${String(i).padStart(2, '0')}`, passed: i < passed }),
  ).map((t) => ({ ...t, tracePath: `${runId}/${t.tracePath}` }))
}

describe('renderMarkdownReport', () => {
  it('heads the report with the run id, status, target and benchmark', () => {
    const text = renderMarkdownReport(fixture())
    expect(text.split('\n')[0]).toBe('# Run 0190f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b')
    expect(text).toContain('- **Status:** complete')
    expect(text).toContain('- **Target:** mock-scripted (mock)')
    expect(text).toMatch(/- \*\*Benchmark:\*\* toy 1\.0\.0/)
  })

  it('puts the sections in order: headline … usage, and the baseline comparison last', () => {
    const benchmarks = metadataFor([]).benchmarks
    const trials = [...taskTrials('a', 2, 2, { category: 'x' }), ...taskTrials('b', 2, 1, { category: 'y' })]
    const comparison = compareToBaseline(
      { runId: 'base', benchmarks, trials },
      { runId: 'cand', benchmarks, trials },
    )
    const headings = (text: string) => text.split('\n').filter((line) => line.startsWith('## '))
    expect(headings(report(trials, { comparison }))).toEqual([
      '## Overall',
      '## Outcomes',
      '## Evaluators',
      '## pass@k / pass^k',
      '## Categories',
      '## Tasks',
      '## Trials',
      '## Evaluator findings',
      '## Usage',
      '## Baseline comparison',
    ])
    expect(headings(report(singleTrialRun(3, 2, 'r')))).toEqual([
      '## Overall',
      '## Outcomes',
      '## Evaluators',
      '## pass@k / pass^k',
      '## Trials',
      '## Evaluator findings',
      '## Usage',
    ])
  })

  it('states the headline pass rate with its interval, method, counts and error policy, then the other policy', () => {
    const overall = section(renderMarkdownReport(fixture()), 'Overall')
    // Per-task rates 1, ½, ½: mean 2/3, a t interval over the three rates.
    const lines = overall.split('\n').filter((line) => line !== '')
    expect(lines[1]).toMatch(
      /^\*\*Pass rate: 66\.7%\*\* \(95% CI [\d.]+–[\d.]+%, t over per-task rates; 3 tasks, 6 trials; infra failures counted as failures\)$/,
    )
    expect(lines[2]).toMatch(
      /^With infra failures excluded: 66\.7% \(95% CI [\d.]+–[\d.]+%, t over per-task rates; 3 tasks, 6 trials\)\. 4 of 6 trials passed\.$/,
    )
    expect(overall).toContain(
      '**Flaky tasks:** 2 of 3 passed in some trials and failed in others: toy/task-1 (1/2), toy/task-2 (1/2)',
    )
    expect(overall).not.toContain('never passed')
  })

  it('tells the two error policies apart when infra failures exist, leading with the configured one', () => {
    const trials = [
      ...taskTrials('a', 1, 1),
      ...taskTrials('b', 1, 1),
      scoredTrial({ taskId: 'c', outcome: 'infra_failure' }),
      ...taskTrials('d', 1, 0),
    ]
    const counted = section(report(trials), 'Overall')
    expect(counted).toMatch(
      /^\*\*Pass rate: 50\.0%\*\* \(95% CI [\d.]+–[\d.]+%, Wilson; 4 tasks, 4 trials; infra failures counted as failures\)$/m,
    )
    expect(counted).toMatch(
      /^With infra failures excluded: 66\.7% \(95% CI [\d.]+–[\d.]+%, Wilson; 3 tasks, 3 trials\)\. 2 of 4 trials passed\.$/m,
    )
    const summary = summarize(trials)
    const excluded = renderMarkdownReport({
      metadata: metadataFor(trials),
      trials,
      summary: {
        ...summary,
        headline: { ...summary.headline, primary: summary.headline.infraExcluded },
        settings: { ...summary.settings, errorPolicy: 'exclude' },
      },
    })
    expect(section(excluded, 'Overall')).toMatch(
      /^\*\*Pass rate: 66\.7%\*\* \(.*; 3 tasks, 3 trials; infra failures excluded\)$/m,
    )
    expect(section(excluded, 'Overall')).toMatch(/^With infra failures counted as failures: 50\.0% /m)
  })

  describe('the acceptance scenario: 50 tasks × 10 trials, 49 always passing, one never', () => {
    const trials = acceptanceTrials()
    const text = report(trials)

    it('calls out the task that never passed right under the headline, before the outcomes', () => {
      const headline = text.indexOf('**Pass rate: 98.0%** (95% CI 89.5–99.6%, Wilson; 50 tasks, 500 trials;')
      const callout = text.indexOf('> **⚠ 1 task never passed:** toy/broken (0/10)\n')
      const outcomes = text.indexOf('## Outcomes')
      expect(headline).toBeGreaterThan(0)
      expect(callout).toBeGreaterThan(headline)
      expect(callout).toBeLessThan(outcomes)
      // Nothing but the other policy's figure lies between the headline and the callout.
      const between = text
        .slice(headline, callout)
        .split('\n')
        .filter((line) => line.trim() !== '')
      expect(between).toHaveLength(2)
      expect(between[1]).toMatch(/^With infra failures excluded: 98\.0% /)
      expect(section(text, 'Overall')).toContain('**Flaky tasks:** none of 50.')
    })

    it('lists tasks with the never-passed one first, and pass@k for k = 1 … 10', () => {
      const tasks = tableRows(section(text, 'Tasks'))
      expect(tasks).toHaveLength(50)
      expect(tasks[0]).toEqual(['broken', '10', '0', '0.0%', '1.00', 'no (never passed)'])
      expect(tasks[1]).toEqual(['task-00', '10', '10', '100.0%', '1.00', 'no'])
      const passAtK = tableRows(section(text, 'pass@k / pass^k'))
      expect(passAtK.map((row) => row[0])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'])
      expect(passAtK[0]).toEqual(['1', '98.0%', '98.0%', '50'])
      expectNoLeaks(text)
    })
  })

  it('caps the never-passed callout at 20 names', () => {
    const trials = [
      ...Array.from({ length: 25 }, (_, i) =>
        taskTrials(`broken-${String(i).padStart(2, '0')}`, 2, 0),
      ).flat(),
      ...taskTrials('fine', 2, 2),
    ]
    const callout = report(trials)
      .split('\n')
      .find((line) => line.startsWith('> **⚠'))
    expect(callout).toMatch(/^> \*\*⚠ 25 tasks never passed:\*\* toy\/broken-00 \(0\/2\), /)
    expect(callout).toContain('toy/broken-19 (0/2) … and 5 more')
    expect(callout).not.toContain('broken-20')
  })

  it('sorts the task table never-passed first, then flaky (least reliable first), then the rest', () => {
    const trials = [
      ...taskTrials('a-solid', 4, 4),
      ...taskTrials('b-flaky', 4, 3),
      ...taskTrials('c-never', 4, 0),
      ...taskTrials('d-flaky', 4, 1),
    ]
    const rows = tableRows(section(report(trials), 'Tasks'))
    expect(rows.map((r) => [r[0], r[3], r[4], r[5]])).toEqual([
      ['c-never', '0.0%', '1.00', 'no (never passed)'],
      ['d-flaky', '25.0%', '0.25', 'yes'],
      ['b-flaky', '75.0%', '0.25', 'yes'],
      ['a-solid', '100.0%', '1.00', 'no'],
    ])
  })

  it('leaves out pass@k, the task table and the flaky line when every task ran once', () => {
    const trials = singleTrialRun(12, 9, 'r')
    const text = report(trials)
    expect(section(text, 'pass@k / pass^k')).toContain(
      'Every task ran once: pass@k and pass^k need several trials per task.',
    )
    expect(tableRows(section(text, 'pass@k / pass^k'))).toEqual([])
    expect(text).not.toContain('## Tasks')
    expect(text).not.toContain('**Flaky tasks:**')
    expect(text).not.toContain('## Categories')
    expect(tableRows(section(text, 'Trials')).map((r) => r[0])).toEqual(['t09', 't10', 't11'])
    expect(section(text, 'Trials')).toContain(
      '9 of 12 trials passed and are not listed; the 3 trials that did not pass:',
    )
    expect(section(text, 'Overall')).toContain('**Pass rate: 75.0%** (95% CI ')
    expect(section(text, 'Overall')).toContain(', Wilson; 12 tasks, 12 trials;')
    expect(section(text, 'Overall')).toContain(
      '> **⚠ 3 tasks never passed:** toy/t09 (0/1), toy/t10 (0/1), toy/t11 (0/1)',
    )
    expectNoLeaks(text)
  })

  it('shows pass@k as undefined, not null, where some task has fewer than k trials', () => {
    const trials = [...taskTrials('a', 3, 2), ...taskTrials('b', 2, 2), ...taskTrials('c', 1, 0)]
    const text = report(trials)
    const rows = tableRows(section(text, 'pass@k / pass^k'))
    expect(rows[0]).toEqual(['1', '55.6%', '55.6%', '3'])
    expect(rows[1]).toEqual([
      '2',
      'undefined (1 task has fewer than 2 trials)',
      'undefined (1 task has fewer than 2 trials)',
      '2',
    ])
    expect(rows[2]?.[1]).toBe('undefined (2 tasks have fewer than 3 trials)')
    expectNoLeaks(text)
  })

  it('counts outcomes and how the runs ended', () => {
    const trials = [
      ...taskTrials('a', 1, 1),
      scoredTrial({ taskId: 'b', outcome: 'limit_exceeded' }),
      scoredTrial({ taskId: 'c', outcome: 'infra_failure' }),
      scoredTrial({ taskId: 'd', outcome: 'failed' }),
    ]
    const outcomes = section(report(trials), 'Outcomes')
    expect(tableRows(outcomes)).toEqual([
      ['passed', '1', '25.0%'],
      ['failed', '1', '25.0%'],
      ['limit_exceeded', '1', '25.0%'],
      ['infra_failure', '1', '25.0%'],
    ])
    expect(tableRows(outcomes.split('### How the runs ended')[1] ?? '')).toEqual([
      ['completed', '2', '50.0%'],
      ['limit_cost', '1', '25.0%'],
      ['none (no agent result)', '1', '25.0%'],
    ])
    expect(tableRows(section(renderMarkdownReport(fixture()), 'Outcomes'))).toEqual([
      ['passed', '4', '66.7%'],
      ['failed', '1', '16.7%'],
      ['policy_violation', '1', '16.7%'],
    ])
  })

  it('gives each evaluator its mean with t, clustered and bootstrap uncertainty, its Wilson pass rate and errors', () => {
    const trials = [
      ...taskTrials('a', 2, 2, { category: 'x' }),
      ...taskTrials('b', 2, 1, { category: 'x' }),
      ...taskTrials('c', 2, 1, { category: 'y' }),
      ...taskTrials('d', 2, 0, { category: 'z' }),
    ]
    const evaluators = section(report(trials), 'Evaluators')
    expect(evaluators).toContain(
      '| Evaluator | Kind | n | Mean score | 95% CI (t) | Clustered SE | 95% CI (bootstrap) | Pass rate | 95% CI (Wilson) | Errors |',
    )
    const [row] = tableRows(evaluators)
    expect(row?.slice(0, 4)).toEqual(['exact-match', 'deterministic', '8', '0.500'])
    expect(row?.[4]).toMatch(/^(−?\d\.\d{3}( to |–)\d\.\d{3})$/)
    expect(row?.[5]).toMatch(/^0\.\d{3} \(3 clusters\)$/)
    expect(row?.[6]).toMatch(/^0\.\d{3}–[01]\.\d{3}$/)
    // Wilson 4 of 8 at 95%: 0.5 ± 0.285.
    expect(row?.slice(7)).toEqual(['50.0%', '21.5–78.5%', '0'])
    expect(evaluators).toContain(
      'Settings: 95% confidence · trials reduced per task by mean · infra failures counted as failures · ' +
        'clustered by label `category` · bootstrap 2,000 resamples, seed 20261130.',
    )
  })

  it('shows figures a single task cannot give as dashes, and counts evaluator errors', () => {
    const trials = [scoredTrial({ taskId: 'only', passed: true, scores: [1, 0] })]
    trials[0]!.scores[1]!.error = 'judge threw: 500'
    const summary = summarize(trials)
    const text = renderMarkdownReport({
      metadata: metadataFor(trials),
      trials,
      summary: { ...summary, settings: { ...summary.settings, clusterBy: null } },
    })
    const rows = tableRows(section(text, 'Evaluators'))
    expect(rows).toEqual([
      [
        'exact-match',
        'deterministic',
        '1',
        '1.000',
        // A 0/1 score gets a Wilson interval, as the headline does, even over one task: 1/(1 + z²) = 0.2065.
        '0.207–1.000',
        '—',
        '—',
        '100.0%',
        expect.stringMatching(/^20\.7–100\.0%$/),
        '0',
      ],
      [
        'judge',
        'deterministic',
        '1',
        '0.000',
        // z²/(1 + z²) = 0.7935 (z = 1.959964).
        '0.000–0.793',
        '—',
        '—',
        '0.0%',
        expect.stringMatching(/^0\.0–79\.3%$/),
        '1',
      ],
    ])
    expect(section(text, 'Evaluators')).toContain('· no clustering ·')
    expectNoLeaks(text)
  })

  it('tabulates categories when tasks carry them, and not otherwise', () => {
    const trials = [
      ...taskTrials('add', 2, 2, { category: 'math' }),
      ...taskTrials('mul', 2, 1, { category: 'math' }),
      ...taskTrials('spell', 2, 0, { category: 'text' }),
    ]
    const rows = tableRows(section(report(trials), 'Categories'))
    expect(rows.map((r) => r.slice(0, 5))).toEqual([
      ['math', '2', '4', '3', '75.0%'],
      ['text', '1', '2', '0', '0.0%'],
    ])
    // One task that never passed: a 0/1 value, so a Wilson interval (0 of 1: [0, z²/(1 + z²)] = [0, 0.7935]).
    expect(rows[1]?.[5]).toBe('0.0–79.3%')
    expect(report(taskTrials('a', 2, 1))).not.toContain('## Categories')
  })

  it('shows each trial that did not pass with usage, and why it failed with the steps it rests on', () => {
    const rows = tableRows(section(renderMarkdownReport(fixture()), 'Trials'))
    expect(rows).toHaveLength(2)
    const byKey = new Map(rows.map((r) => [`${r[0]}#${r[1]}`, r]))
    expect(byKey.get('task-2#1')).toEqual([
      'task-2',
      '1',
      'failed',
      'completed',
      '120',
      '$0.0125',
      '1.50',
      'exact-match 0.00: expected "4", got "5" (step 4)',
    ])
    expect(byKey.get('task-2#1')?.[2]).toBe('failed')
    expect(byKey.get('task-2#1')?.[7]).toBe('exact-match 0.00: expected "4", got "5" (step 4)')
    expect(byKey.get('task-1#1')?.[7]).toBe('policy tool-policy FAIL: tool rm is denied (step 2)')
  })

  it('lists each evaluator finding with the steps it cites, and evaluator errors, skipping clean passes', () => {
    const input = fixture()
    const [first, second] = input.trials
    first!.scores.push({
      evaluatorId: 'trace-quality',
      kind: 'trace_quality',
      score: 0.5,
      passed: false,
      costUsd: 0,
      latencyMs: 1,
      explanation: '1 finding',
      citations: [1, 3, 5],
      findings: [{ type: 'repeated_call', message: 'search called 3 times', citations: [1, 3, 5] }],
      error: null,
    })
    second!.scores.push({
      evaluatorId: 'judge',
      kind: 'llm_judge',
      score: 0,
      passed: false,
      costUsd: 0,
      latencyMs: 1,
      explanation: 'evaluator threw: 500',
      citations: [],
      findings: [],
      error: 'evaluator threw: 500',
    })
    const rows = tableRows(section(renderMarkdownReport(input), 'Evaluator findings'))
    expect(rows).toEqual([
      [
        'task-0',
        '0',
        'trace-quality',
        'trace_quality',
        '0.50 FAIL',
        'steps 1, 3, 5',
        'repeated_call: search called 3 times (steps 1, 3, 5)',
      ],
      ['task-0', '1', 'judge', 'llm_judge', '0.00 error', '—', 'evaluator threw: 500'],
      ['task-2', '1', 'exact-match', 'deterministic', '0.00 FAIL', 'step 4', 'expected "4", got "5"'],
    ])
    expect(renderMarkdownReport(fixture(['task-0']))).toContain('No evaluator found anything to report.')
  })

  it('totals usage, with per-trial percentiles and the cost per solved task', () => {
    const rows = tableRows(section(renderMarkdownReport(fixture()), 'Usage'))
    expect(rows).toEqual([
      ['Total', '720', '$0.0750', '9.00', '12'],
      ['Mean per trial', '120', '$0.0125', '1.50', '2.0'],
      ['p50 per trial', '120', '$0.0125', '1.50', '—'],
      ['p95 per trial', '120', '$0.0125', '1.50', '—'],
      ['Max per trial', '120', '$0.0125', '1.50', '—'],
    ])
    expect(renderMarkdownReport(fixture())).toContain(
      '**Cost per solved task:** $0.0187 (total cost ÷ passed trials).',
    )
    const costs = [1, 2, 3, 4, 10].map((tokens, i) =>
      scoredTrial({ taskId: `t${i}`, passed: i === 0, tokens, costUsd: tokens / 100 }),
    )
    const usage = section(report(costs), 'Usage')
    expect(tableRows(usage)[2]).toEqual(['p50 per trial', '3', '$0.0300', '1.00', '—'])
    expect(tableRows(usage)[3]).toEqual(['p95 per trial', '9', '$0.0880', '1.00', '—'])
    expect(tableRows(usage)[4]).toEqual(['Max per trial', '10', '$0.1000', '1.00', '—'])
    expect(usage).toContain('**Cost per solved task:** $0.2000 (total cost ÷ passed trials).')
    const none = section(report(taskTrials('a', 2, 0)), 'Usage')
    expect(none).toContain('**Cost per solved task:** — (total cost ÷ passed trials; no trial passed).')
  })

  describe('baseline comparison', () => {
    const benchmarks = metadataFor([]).benchmarks
    const baseline = singleTrialRun(20, 20, 'base')
    const candidate = singleTrialRun(20, 10, 'cand')
    const comparison = compareToBaseline(
      { runId: 'run-base', benchmarks, trials: baseline },
      { runId: 'run-cand', benchmarks, trials: candidate },
    )
    const text = report(candidate, { comparison })
    const compared = section(text, 'Baseline comparison')

    it('comes last, with the verdict in bold and its reason, the baseline and what was paired', () => {
      expect(comparison.verdict).toBe('NO_GO')
      expect(
        text
          .split('\n')
          .filter((l) => l.startsWith('## '))
          .at(-1),
      ).toBe('## Baseline comparison')
      // The reason's `p = … < 0.05` is escaped as all text from a bundle is: it renders as written.
      expect(compared).toContain(`**Verdict: NO_GO** — ${comparison.overall.reason.replace('<', '&lt;')}`)
      expect(comparison.overall.reason).toMatch(/^dropped 50\.0 pp/)
      expect(compared).toContain('- **Baseline run:** run-base (toy)')
      expect(compared).toContain('- **Paired tasks:** 20')
      expect(compared).toContain('- **Only in the baseline:** 0')
      expect(compared).toContain('- **Only in this run:** 0')
      expect(compared).toContain('α = 0.05, largest acceptable drop 5.0 pp, at least 10 paired tasks')
    })

    it('tabulates each metric: means, change with its interval, test and p-value, McNemar counts, MDE', () => {
      const rows = tableRows(compared)
      expect(rows.map((r) => r[0])).toEqual(['pass rate (overall)', 'exact-match pass rate'])
      const [overall] = rows
      expect(overall?.slice(0, 5)).toEqual(['pass rate (overall)', '20', '100.0%', '50.0%', '−50.0 pp'])
      expect(overall?.[5]).toMatch(/^\\\[−\d+\.\d, −\d+\.\d\\\] pp$/)
      // Exact McNemar, 10 discordant pairs all one way: p = 2 · 2⁻¹⁰.
      expect(overall?.slice(6, 9)).toEqual(['McNemar exact', '0.00195', '10 / 0'])
      expect(overall?.[9]).toMatch(/^\d+\.\d pp$/)
      // Clopper–Pearson 95% upper bound of 10 regressions in 20: scipy beta.ppf(0.95, 11, 10) = 0.6981.
      expect(overall?.[10]).toBe('69.8%')
      expect(overall?.[11]).toBe('NO_GO')
    })

    it('lists the regressed tasks, capped at 30', () => {
      expect(compared).toContain(
        '10 paired tasks got worse (pass rate, baseline → this run); 0 tasks improved.',
      )
      expect(compared).toContain('- toy/t10: 100.0% → 0.0%')
      expect(regressedPart(compared).match(/^- toy\/t\d+: /gm)).toHaveLength(10)
      const many = compareToBaseline(
        { runId: 'b', benchmarks, trials: singleTrialRun(45, 45, 'b') },
        { runId: 'c', benchmarks, trials: singleTrialRun(45, 5, 'c') },
      )
      const listed = section(report(singleTrialRun(45, 5, 'c'), { comparison: many }), 'Baseline comparison')
      expect(regressedPart(listed).match(/^- toy\/t\d+: /gm)).toHaveLength(30)
      expect(listed).toContain('- … and 10 more')
      expectNoLeaks(text)
    })

    it('lists the broken tasks, and with failOnBroken makes them the NO_GO verdict', () => {
      // 8 tasks × 3 trials; two go from 3/3 to 0/3: too few pairs for a test, but two tasks broke.
      const trials = (broken: number) =>
        Array.from({ length: 8 }, (_, t) =>
          Array.from({ length: 3 }, (_, k) =>
            scoredTrial({ taskId: `t${t}`, trial: k, passed: t >= broken }),
          ),
        ).flat()
      const plain = compareToBaseline(
        { runId: 'b', benchmarks, trials: trials(0) },
        { runId: 'c', benchmarks, trials: trials(2) },
      )
      const listed = section(report(trials(2), { comparison: plain }), 'Baseline comparison')
      expect(listed).toMatch(/^\*\*Verdict: INSUFFICIENT_EVIDENCE\*\*/m)
      expect(listed).toContain('### Broken tasks')
      expect(listed).toContain('2 tasks always passed in the baseline and never pass now')
      expect(listed).toContain('- toy/t0: 3/3 → 0/3')
      expect(listed).toContain('- toy/t1: 3/3 → 0/3')
      const strict = compareToBaseline(
        { runId: 'b', benchmarks, trials: trials(0) },
        { runId: 'c', benchmarks, trials: trials(2) },
        { failOnBroken: true },
      )
      const failed = section(report(trials(2), { comparison: strict }), 'Baseline comparison')
      expect(failed).toMatch(
        /^\*\*Verdict: NO_GO\*\* — 2 broken tasks \(always passed in the baseline, never pass now: toy\/t0 \(3\/3 → 0\/3\), toy\/t1 \(3\/3 → 0\/3\)\) and failOnBroken is set/m,
      )
      expect(failed).toContain('any broken task fails (failOnBroken)')
    })

    it('names the evaluator whose regression made the verdict NO_GO, and shows undefined figures as dashes', () => {
      const base = Array.from({ length: 12 }, (_, i) =>
        scoredTrial({ taskId: `t${i}`, passed: true, scores: [1, 1] }),
      )
      const cand = Array.from({ length: 12 }, (_, i) =>
        scoredTrial({ taskId: `t${i}`, passed: true, scores: [1, i < 8 ? 0 : 1] }),
      )
      const c = compareToBaseline(
        { runId: 'b', benchmarks, trials: base },
        { runId: 'c', benchmarks, trials: cand },
      )
      expect(c.overall.verdict).not.toBe('NO_GO')
      expect(c.verdict).toBe('NO_GO')
      const judged = section(report(cand, { comparison: c }), 'Baseline comparison')
      expect(judged).toMatch(/^\*\*Verdict: NO_GO\*\* — evaluator judge: dropped 66\.7 pp/m)
      const tiny = compareToBaseline(
        { runId: 'b', benchmarks, trials: singleTrialRun(1, 1, 'b') },
        { runId: 'c', benchmarks, trials: singleTrialRun(1, 1, 'c') },
      )
      expect(tiny.verdict).toBe('INSUFFICIENT_EVIDENCE')
      const one = report(singleTrialRun(1, 1, 'c'), { comparison: tiny })
      const [row] = tableRows(section(one, 'Baseline comparison'))
      expect(row?.[5]).toBe('—')
      expect(row?.[9]).toBe('—')
      // 0 regressions in 1 pair: the bound is 1 − 0.05 = 95%.
      expect(row?.[10]).toBe('95.0%')
      expect(row?.[11]).toBe('INSUFFICIENT_EVIDENCE')
      expectNoLeaks(one)
    })
  })

  it('lists only the trials that did not pass, capped, each benchmark its share, and counts the rest', () => {
    // 500 trials: 350 pass, 140 of benchmark `big` and 10 of `small` do not.
    const trials = [
      ...Array.from({ length: 480 }, (_, i) =>
        scoredTrial({ taskId: `b${String(i).padStart(3, '0')}`, benchmark: 'big', passed: i >= 140 }),
      ),
      ...Array.from({ length: 20 }, (_, i) =>
        scoredTrial({ taskId: `s${String(i).padStart(2, '0')}`, benchmark: 'small', passed: i >= 10 }),
      ),
    ]
    const text = report(trials)
    const trialsText = section(text, 'Trials')
    const rows = tableRows(trialsText)
    expect(rows).toHaveLength(MAX_TRIAL_ROWS)
    expect(rows.every((r) => r[3] === 'failed')).toBe(true)
    // The small benchmark's few failures are not crowded out by the big one's many.
    expect(rows.filter((r) => r[0] === 'small')).toHaveLength(10)
    expect(trialsText).toContain(
      `350 of 500 trials passed and are not listed; the first ${MAX_TRIAL_ROWS} of the 150 that did not pass, each benchmark its share:`,
    )
    expect(trialsText).toContain(
      `… and ${150 - MAX_TRIAL_ROWS} more trials that did not pass (big ${150 - MAX_TRIAL_ROWS}). report.html and scores.json hold every trial.`,
    )
    expect(text.length).toBeLessThan(40_000)
  })

  it('says so when every trial passed, listing none', () => {
    const text = section(report(singleTrialRun(5, 5, 'r')), 'Trials')
    expect(text).toContain('All 5 trials passed; report.html and scores.json hold each of them.')
    expect(tableRows(text)).toEqual([])
  })

  it('escapes pipes so a cell cannot break the table', () => {
    const input = fixture(['a|b', 'plain'])
    // Only trials that did not pass are listed: fail the piped one.
    const trials = input.trials.map((t) =>
      t.taskId === 'a|b' ? { ...t, passed: false, outcome: 'failed' as const } : t,
    )
    const text = renderMarkdownReport({ ...input, trials, summary: summarize(trials) })
    expect(text).toContain('| a\\|b |')
    const rows = tableRows(section(text, 'Trials'))
    expect(rows.every((r) => r.length === 8)).toBe(true)
    expect(rows.map((r) => r[0])).toContain('a\\|b')
    expect(escapeCell('x|y\nz')).toBe('x\\|y z')
  })

  it('warns that an interrupted run is incomplete, and handles a run without trials', () => {
    const empty = { ...fixture(), trials: [], summary: summarize([]) }
    const text = renderMarkdownReport({ ...empty, metadata: { ...empty.metadata, status: 'interrupted' } })
    expect(text).toContain('**Interrupted run:**')
    expect(text).toContain('No trials recorded.')
    expect(text).toContain(
      '**Pass rate: —** (95% CI —; 0 tasks, 0 trials; infra failures counted as failures)',
    )
    expect(text).toContain('**Cost per solved task:** —')
    expectNoLeaks(text)
  })
})

describe('report.md is inert', () => {
  it('keeps hostile agent output from adding HTML, links, images or table rows', () => {
    const hostile =
      'ok</td><script>alert(1)</script> ![x](https://evil.example/p.png) [y](https://e) | a\n| b ``` c'
    const trial = scoredTrial({ taskId: 'hostile', passed: false, scores: [0] })
    trial.scores[0]!.explanation = hostile
    trial.scores[0]!.findings = [{ type: 'bad', message: hostile, citations: [1] }]
    const trials = [trial]
    const report = renderMarkdownReport({ metadata: metadataFor(trials), trials, summary: summarize(trials) })
    expect(report).not.toMatch(/<script|<\/td>/)
    expect(report).not.toMatch(/(?<!\\)\]\(https/)
    expect(report).toContain('&lt;script&gt;')
    // Every row of every table has as many cells as its header.
    for (const table of report.split('\n\n').filter((block) => block.startsWith('| '))) {
      const widths = table.split('\n').map((row) => row.split(/(?<!\\)\|/).length)
      expect(new Set(widths).size, table).toBe(1)
    }
  })
})

/** The comparison section from its `### Regressed tasks` heading on (the broken tasks come before it). */
function regressedPart(compared: string): string {
  return compared.slice(compared.indexOf('### Regressed tasks'))
}
