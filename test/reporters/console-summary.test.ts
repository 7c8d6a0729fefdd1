import { describe, expect, it } from 'vitest'
import { consoleSummary } from '../../reporters/console-summary.ts'
import { TrialRecord, type ScoredTrial, type TrialOutcome } from '../../src/core/index.ts'
import { compareToBaseline } from '../../src/scorers/index.ts'
import { acceptanceTrials, metadataFor, scoredTrial, summarize, taskTrials } from '../reports/fixtures.ts'

function record(
  taskId: string,
  trial: number,
  outcome: TrialOutcome,
  scores: number[],
  terminatedBy: string | null = 'completed',
): TrialRecord {
  return TrialRecord.parse({
    runId: 'run-summary',
    benchmark: { id: 'toy', version: '1', datasetChecksum: 'c'.repeat(64) },
    taskId,
    taskChecksum: 'd'.repeat(64),
    trial,
    outcome,
    passed: outcome === 'passed',
    result:
      terminatedBy === null
        ? null
        : {
            success: outcome === 'passed',
            finalAnswer: 'x',
            error: null,
            totalCostUsd: 0,
            totalTokens: 0,
            turns: 1,
            wallSeconds: 0.1,
            terminatedBy,
          },
    scores: scores.map((score, i) => ({
      evaluatorId: `e${i}`,
      kind: 'deterministic',
      score,
      passed: score >= 0.5,
      latencyMs: 1,
      explanation: '',
    })),
    verdicts: [],
    usage: { tokens: 0, costUsd: 0, wallSeconds: 0.1, turns: 1 },
    runner: { name: 'mock-scripted', kind: 'mock' },
    tracePath: `traces/${taskId}.t${trial}.jsonl`,
    eventCount: 3,
  })
}

function summaryOf(trials: readonly ScoredTrial[], bundle = 'runs/r'): string[] {
  return consoleSummary(trials, summarize(trials), bundle).split('\n')
}

/** The cells of a row, split on runs of two or more spaces. */
function cells(line: string): string[] {
  return line.trim().split(/\s{2,}/)
}

/** Every column of `rows` (after the first) starts at the same offset. */
function expectAligned(rows: readonly string[]): void {
  const split = rows.map(cells)
  const columns = Math.min(...split.map((r) => r.length))
  for (let column = 1; column < columns; column++) {
    const starts = rows.map((row, i) => {
      const previous = split[i]![column - 1]!
      return row.indexOf(split[i]![column]!, row.indexOf(previous) + previous.length)
    })
    expect(new Set(starts).size, `column ${column} starts at ${starts.join(', ')}`).toBe(1)
  }
}

describe('consoleSummary, every task run once', () => {
  const trials = [
    record('arith-add', 0, 'passed', [1]),
    record('weather-fahrenheit', 1, 'passed', [1, 0.5]),
    record('cost-ceiling', 0, 'limit_exceeded', [0, 1, 0], 'limit_cost'),
    record('broken', 0, 'infra_failure', [], null),
  ]
  const lines = consoleSummary(trials, summarize(trials), 'runs/0190-run').split('\n')
  const rows = lines.slice(0, trials.length)

  it('has one line per trial, in the order given, then the headline, the failed tasks and a closing line', () => {
    expect(lines).toHaveLength(trials.length + 3)
    expect(rows.map(cells)).toEqual([
      ['arith-add #0', 'passed', 'completed', '1.00'],
      ['weather-fahrenheit #1', 'passed', 'completed', '0.75'],
      ['cost-ceiling #0', 'limit_exceeded', 'limit_cost', '0.33'],
      ['broken #0', 'infra_failure', '-', '-'],
    ])
    expect(lines[4]).toMatch(/^agentevalops: 50\.0% pass rate \(95% CI [\d.]+–[\d.]+%\) over 4 tasks$/)
    expect(lines[5]).toBe('agentevalops: ⚠ 2 tasks never passed: toy/broken (0/1), toy/cost-ceiling (0/1)')
    expect(lines.join('\n')).not.toContain('flaky')
  })

  it('aligns the columns', () => {
    for (const row of rows) expect(row.startsWith('  ')).toBe(true)
    expectAligned(rows)
  })

  it('closes with passed/n, the percentage and where the bundle is', () => {
    expect(lines.at(-1)).toBe('agentevalops: 2/4 trials passed (50.0%) · bundle runs/0190-run')
    const third = [record('a', 0, 'passed', [1]), record('b', 0, 'failed', [0]), record('c', 0, 'failed', [])]
    expect(consoleSummary(third, summarize(third), 'x').split('\n').at(-1)).toBe(
      'agentevalops: 1/3 trials passed (33.3%) · bundle x',
    )
  })

  it('is just the closing line for an empty run', () => {
    expect(consoleSummary([], summarize([]), 'runs/r')).toBe(
      'agentevalops: 0/0 trials passed (0.0%) · bundle runs/r',
    )
  })

  it('lists only the trials that did not pass when there are more than 40', () => {
    const many = Array.from({ length: 45 }, (_, i) =>
      scoredTrial({ taskId: `t${String(i).padStart(2, '0')}`, passed: i % 20 !== 7 }),
    )
    const lines = summaryOf(many)
    expect(lines.slice(0, 3)).toEqual([
      '  t07 #0  failed  completed  0.00',
      '  t27 #0  failed  completed  0.00',
      '  … 43 passed trials not listed',
    ])
    expect(lines[3]).toMatch(/^agentevalops: 95\.6% pass rate /)
  })

  it('gives each benchmark its share of the 40 rows, so one that fails everything hides no other', () => {
    const trials = [
      ...Array.from({ length: 100 }, (_, i) =>
        scoredTrial({ taskId: `a${String(i).padStart(3, '0')}`, passed: false, benchmark: 'alpha' }),
      ),
      ...['b1', 'b2', 'b3'].map((taskId) => scoredTrial({ taskId, passed: false, benchmark: 'beta' })),
    ]
    const rows = summaryOf(trials).filter((l) => /^ {2}(alpha|beta)\//.test(l))
    expect(rows).toHaveLength(40)
    expect(rows.filter((l) => l.startsWith('  beta/')).map((l) => cells(l)[0])).toEqual([
      'beta/b1 #0',
      'beta/b2 #0',
      'beta/b3 #0',
    ])
  })

  it('lists no more than 40 trials that did not pass, and says how many more there are', () => {
    const many = Array.from({ length: 100 }, (_, i) =>
      scoredTrial({ taskId: `t${String(i).padStart(3, '0')}`, passed: i % 2 === 0 }),
    )
    const lines = summaryOf(many)
    expect(lines.slice(0, 40).every((l) => /^ {2}t\d{3} #0 {2}failed/.test(l))).toBe(true)
    expect(lines[0]).toMatch(/^ {2}t001 #0/)
    expect(lines[39]).toMatch(/^ {2}t079 #0/)
    expect(lines.slice(40, 42)).toEqual([
      "  … 10 more not passed (see the bundle's report.html or report.md)",
      '  … 50 passed trials not listed',
    ])
  })
})

describe('consoleSummary, tasks run several times', () => {
  it('names the task that never passed in the acceptance scenario, in one line per failing task', () => {
    const trials = acceptanceTrials()
    const lines = summaryOf(trials, 'runs/x')
    expect(lines).toEqual([
      '  broken  0/10  NEVER PASSED',
      '  … 49 tasks passed every trial',
      'agentevalops: 98.0% pass rate (95% CI 89.5–99.6%) over 50 tasks',
      'agentevalops: ⚠ 1 task never passed: toy/broken (0/10)',
      'agentevalops: 490/500 trials passed (98.0%) · bundle runs/x',
    ])
  })

  it('has one aligned line per task with passed/trials and flaky or NEVER PASSED, then the flaky tasks', () => {
    const trials = [
      ...taskTrials('always', 10, 10),
      ...taskTrials('sometimes', 10, 7),
      ...taskTrials('never', 10, 0),
      scoredTrial({ taskId: 'down', trial: 0, outcome: 'infra_failure' }),
      scoredTrial({ taskId: 'down', trial: 1, outcome: 'infra_failure' }),
    ]
    const lines = summaryOf(trials)
    const rows = lines.slice(0, 4)
    expect(rows.map(cells)).toEqual([
      ['always', '10/10'],
      ['down', '0/2', 'NEVER PASSED (2 infra)'],
      ['never', '0/10', 'NEVER PASSED'],
      ['sometimes', '7/10', 'flaky'],
    ])
    expectAligned(rows.slice(1))
    expect(lines.slice(4)).toEqual([
      expect.stringMatching(/^agentevalops: 42\.5% pass rate \(95% CI [\d.]+–[\d.]+%\) over 4 tasks$/),
      'agentevalops: ⚠ 2 tasks never passed: toy/down (0/2), toy/never (0/10)',
      'agentevalops: 1 flaky task: toy/sometimes (7/10)',
      'agentevalops: 17/32 trials passed (53.1%) · bundle runs/r',
    ])
  })

  it('caps the names in a warning line and lists only the tasks not fully passing past 40 tasks', () => {
    const trials = [
      ...Array.from({ length: 30 }, (_, i) => taskTrials(`ok-${String(i).padStart(2, '0')}`, 3, 3)).flat(),
      ...Array.from({ length: 12 }, (_, i) => taskTrials(`flaky-${String(i).padStart(2, '0')}`, 3, 1)).flat(),
    ]
    const lines = summaryOf(trials)
    expect(lines.slice(0, 12).every((l) => /^ {2}flaky-\d\d {2,}1\/3 {2,}flaky$/.test(l))).toBe(true)
    expect(lines[12]).toBe('  … 30 tasks passed every trial')
    const flaky = lines.find((l) => l.startsWith('agentevalops: 12 flaky tasks: '))
    expect(flaky).toContain('toy/flaky-09 (1/3) … and 2 more')
    expect(flaky).not.toContain('flaky-10')
  })

  it('names tasks by benchmark when the run has several', () => {
    const trials = [...taskTrials('same', 2, 2), ...taskTrials('same', 2, 1, { benchmark: 'other' })]
    expect(summaryOf(trials).slice(0, 2).map(cells)).toEqual([
      ['other/same', '1/2', 'flaky'],
      ['toy/same', '2/2'],
    ])
  })
})

describe('consoleSummary against a baseline', () => {
  it('states the verdict and its reason before the closing line', () => {
    const benchmarks = metadataFor([]).benchmarks
    const run = (passed: number) =>
      Array.from({ length: 20 }, (_, i) =>
        scoredTrial({ taskId: `t${String(i).padStart(2, '0')}`, passed: i < passed }),
      )
    const candidate = run(10)
    const comparison = compareToBaseline(
      { runId: 'run-base', benchmarks, trials: run(20) },
      { runId: 'run-cand', benchmarks, trials: candidate },
    )
    const lines = consoleSummary(candidate, { ...summarize(candidate), comparison }, 'runs/c').split('\n')
    expect(lines.at(-2)).toBe(`agentevalops: vs baseline run-base: NO_GO — ${comparison.overall.reason}`)
    expect(lines.at(-2)).toMatch(/NO_GO — dropped 50\.0 pp/)
    expect(lines.at(-1)).toBe('agentevalops: 10/20 trials passed (50.0%) · bundle runs/c')
    // Every regressed task went 1/1 → 0/1: the broken tasks come just before the verdict.
    expect(lines.at(-3)).toMatch(
      /^agentevalops: 10 broken tasks \(always passed in the baseline, never pass now\): toy\/t10 \(1\/1 → 0\/1\), /,
    )
  })
})
