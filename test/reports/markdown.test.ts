import { describe, expect, it } from 'vitest'
import { escapeCell, renderMarkdownReport } from '../../src/reports/index.ts'
import { makeMetadata, makeSummary, makeTrials } from '../bundles/fixtures.ts'

function fixture(tasks?: string[]) {
  const trials = makeTrials(tasks ? { tasks } : {})
  return { metadata: makeMetadata(trials), trials, summary: makeSummary(trials) }
}

/** The table rows under a `## heading`, split into cells on unescaped pipes. */
function tableRows(report: string, heading: string): string[][] {
  const section = report.split(`## ${heading}\n`)[1]?.split('\n## ')[0] ?? ''
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    )
}

describe('renderMarkdownReport', () => {
  it('heads the report with the run id, status, target and benchmark', () => {
    const report = renderMarkdownReport(fixture())
    expect(report.split('\n')[0]).toBe('# Run 0190f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b')
    expect(report).toContain('- **Status:** complete')
    expect(report).toContain('- **Target:** mock-scripted (mock)')
    expect(report).toMatch(/- \*\*Benchmark:\*\* toy 1\.0\.0/)
  })

  it('states the overall pass rate with its n', () => {
    expect(renderMarkdownReport(fixture())).toContain('**Pass rate: 66.7%** (4 of 6 trials passed, n = 6)')
  })

  it('counts outcomes and summarises each evaluator', () => {
    const report = renderMarkdownReport(fixture())
    expect(tableRows(report, 'Outcomes')).toEqual([
      ['passed', '4', '66.7%'],
      ['failed', '1', '16.7%'],
      ['policy_violation', '1', '16.7%'],
    ])
    expect(tableRows(report, 'Evaluators')).toEqual([['exact-match', 'deterministic', '6', '0.833', '83.3%']])
  })

  it('shows each trial with usage, and why a trial failed with the steps it rests on', () => {
    const rows = tableRows(renderMarkdownReport(fixture()), 'Trials')
    expect(rows).toHaveLength(6)
    const byKey = new Map(rows.map((r) => [`${r[0]}#${r[1]}`, r]))
    expect(byKey.get('task-0#0')).toEqual([
      'task-0',
      '0',
      'passed',
      'completed',
      '120',
      '$0.0125',
      '1.50',
      '—',
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
    const rows = tableRows(renderMarkdownReport(input), 'Evaluator findings')
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

  it('totals usage', () => {
    const rows = tableRows(renderMarkdownReport(fixture()), 'Usage')
    expect(rows[0]).toEqual(['Total', '720', '$0.0750', '9.00', '12'])
  })

  it('escapes pipes so a cell cannot break the table', () => {
    const report = renderMarkdownReport(fixture(['a|b', 'plain']))
    expect(report).toContain('| a\\|b |')
    const rows = tableRows(report, 'Trials')
    expect(rows.every((r) => r.length === 8)).toBe(true)
    expect(rows[0]?.[0]).toBe('a\\|b')
    expect(escapeCell('x|y\nz')).toBe('x\\|y z')
  })

  it('warns that an interrupted run is incomplete, and handles a run without trials', () => {
    const empty = { ...fixture(), trials: [], summary: makeSummary([]) }
    const report = renderMarkdownReport({ ...empty, metadata: { ...empty.metadata, status: 'interrupted' } })
    expect(report).toContain('**Interrupted run:**')
    expect(report).toContain('No trials recorded.')
    expect(report).not.toContain('NaN')
  })
})
