import { describe, expect, it } from 'vitest'
import { RunSummary, TrialRecord, type EvaluatorScore, type TrialOutcome } from '../../src/core/index.ts'
import { simpleScorer } from '../../src/scorers/index.ts'

function score(
  evaluatorId: string,
  value: number,
  kind: EvaluatorScore['kind'] = 'deterministic',
): EvaluatorScore {
  return {
    evaluatorId,
    kind,
    score: value,
    passed: value >= 0.5,
    costUsd: 0,
    latencyMs: 1,
    explanation: '',
    citations: [],
    findings: [],
    error: null,
  }
}

function trial(
  taskId: string,
  outcome: TrialOutcome,
  scores: EvaluatorScore[],
  usage: { tokens: number; costUsd: number; wallSeconds: number; turns: number },
): TrialRecord {
  return TrialRecord.parse({
    runId: 'run-1',
    benchmark: { id: 'toy', version: '1', datasetChecksum: 'c' },
    taskId,
    taskChecksum: 'x',
    trial: 0,
    outcome,
    passed: outcome === 'passed',
    result: null,
    scores,
    verdicts: [],
    usage,
    runner: { name: 'mock', kind: 'mock' },
    tracePath: `traces/${taskId}.jsonl`,
    eventCount: 3,
  })
}

describe('simpleScorer', () => {
  it('summarizes counts, outcomes, per-evaluator means and usage totals', () => {
    const trials = [
      trial('a', 'passed', [score('match', 1), score('judge', 0.8, 'llm_judge')], {
        tokens: 100,
        costUsd: 0.01,
        wallSeconds: 0.5,
        turns: 2,
      }),
      trial('b', 'failed', [score('match', 0), score('judge', 0.4, 'llm_judge')], {
        tokens: 200,
        costUsd: 0.02,
        wallSeconds: 1.5,
        turns: 3,
      }),
      trial('c', 'passed', [score('match', 1)], { tokens: 50, costUsd: 0.005, wallSeconds: 0.25, turns: 1 }),
      trial('d', 'limit_exceeded', [], { tokens: 5000, costUsd: 0.1, wallSeconds: 1, turns: 12 }),
    ]
    const summary = simpleScorer().summarize(trials)
    expect(RunSummary.parse(summary)).toEqual(summary)
    expect(summary).toMatchObject({ n: 4, passed: 2, passRate: 0.5 })
    expect(summary.outcomes).toEqual({ passed: 2, failed: 1, limit_exceeded: 1 })
    // Sorted by id; n counts scores, not trials (trial c had no judge score, d had none at all).
    expect(summary.evaluators.map(({ mean: _mean, ...rest }) => rest)).toEqual([
      { evaluatorId: 'judge', kind: 'llm_judge', n: 2, passRate: 0.5 },
      { evaluatorId: 'match', kind: 'deterministic', n: 3, passRate: 2 / 3 },
    ])
    expect(summary.evaluators[0]!.mean).toBeCloseTo(0.6, 10)
    expect(summary.evaluators[1]!.mean).toBe(2 / 3)
    const { costUsd, ...usage } = summary.usage
    expect(usage).toEqual({ tokens: 5350, wallSeconds: 3.25, turns: 18 })
    expect(costUsd).toBeCloseTo(0.135, 10)
  })

  it('summarizes an empty run with zeros, never NaN', () => {
    expect(simpleScorer().summarize([])).toEqual({
      n: 0,
      passed: 0,
      passRate: 0,
      outcomes: {},
      evaluators: [],
      usage: { tokens: 0, costUsd: 0, wallSeconds: 0, turns: 0 },
    })
  })

  it('gives an all-failed run a pass rate of 0 and an evaluator mean of 0', () => {
    const trials = [
      trial('a', 'agent_error', [score('m', 0)], { tokens: 1, costUsd: 0, wallSeconds: 0, turns: 1 }),
    ]
    const summary = simpleScorer().summarize(trials)
    expect(summary).toMatchObject({ n: 1, passed: 0, passRate: 0, outcomes: { agent_error: 1 } })
    expect(summary.evaluators).toEqual([
      { evaluatorId: 'm', kind: 'deterministic', n: 1, mean: 0, passRate: 0 },
    ])
  })
})
