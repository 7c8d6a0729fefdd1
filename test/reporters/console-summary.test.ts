import { describe, expect, it } from 'vitest'
import { consoleSummary } from '../../reporters/console-summary.ts'
import { TrialRecord, type TrialOutcome } from '../../src/core/index.ts'
import { simpleScorer } from '../../src/scorers/index.ts'

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

describe('consoleSummary', () => {
  const trials = [
    record('arith-add', 0, 'passed', [1]),
    record('weather-fahrenheit', 1, 'passed', [1, 0.5]),
    record('cost-ceiling', 0, 'limit_exceeded', [0, 1, 0], 'limit_cost'),
    record('broken', 0, 'infra_failure', [], null),
  ]
  const text = consoleSummary(trials, simpleScorer().summarize(trials), 'runs/0190-run')
  const lines = text.split('\n')

  it('has one line per trial, in the order given, then a closing line', () => {
    expect(lines).toHaveLength(trials.length + 1)
    expect(lines.slice(0, -1).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['arith-add #0', 'passed', 'completed', '1.00'],
      ['weather-fahrenheit #1', 'passed', 'completed', '0.75'],
      ['cost-ceiling #0', 'limit_exceeded', 'limit_cost', '0.33'],
      ['broken #0', 'infra_failure', '-', '-'],
    ])
  })

  it('aligns the columns', () => {
    const rows = lines.slice(0, -1)
    const cells = rows.map((r) => r.trim().split(/\s{2,}/))
    for (const row of rows) expect(row.startsWith('  ')).toBe(true)
    for (const column of [1, 2, 3]) {
      const starts = rows.map((row, i) => {
        const previous = cells[i]![column - 1]!
        return row.indexOf(cells[i]![column]!, row.indexOf(previous) + previous.length)
      })
      expect(new Set(starts).size, `column ${column} starts at ${starts.join(', ')}`).toBe(1)
    }
  })

  it('closes with passed/n, the percentage and where the bundle is', () => {
    expect(lines.at(-1)).toBe('agentevalops: 2/4 trials passed (50.0%) · bundle runs/0190-run')
    const third = [record('a', 0, 'passed', [1]), record('b', 0, 'failed', [0]), record('c', 0, 'failed', [])]
    expect(consoleSummary(third, simpleScorer().summarize(third), 'x').split('\n').at(-1)).toBe(
      'agentevalops: 1/3 trials passed (33.3%) · bundle x',
    )
  })

  it('is just the closing line for an empty run', () => {
    expect(consoleSummary([], simpleScorer().summarize([]), 'runs/r')).toBe(
      'agentevalops: 0/0 trials passed (0.0%) · bundle runs/r',
    )
  })
})
