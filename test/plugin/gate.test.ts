import { describe, expect, it } from 'vitest'
import { explainTrial, isHarnessFailure, passRate, trialHeadline } from '../../plugin/gate.ts'
import { TRIAL_OUTCOMES, TrialRecord, type TrialOutcome } from '../../src/core/index.ts'

const result = {
  success: true,
  finalAnswer: '42',
  error: null,
  totalCostUsd: 0.01,
  totalTokens: 100,
  turns: 2,
  wallSeconds: 0.5,
  terminatedBy: 'completed',
}

/** A zod-valid record (parsed, so defaults are filled in); `overrides` replace top-level fields. */
function record(overrides: Record<string, unknown> = {}): TrialRecord {
  return TrialRecord.parse({
    runId: 'run-gate',
    benchmark: { id: 'toy', version: '1', datasetChecksum: 'c'.repeat(64) },
    taskId: 'arith-add',
    taskChecksum: 'd'.repeat(64),
    trial: 0,
    outcome: 'passed',
    passed: true,
    result,
    scores: [
      {
        evaluatorId: 'exact-match',
        kind: 'deterministic',
        score: 1,
        passed: true,
        latencyMs: 1,
        explanation: 'exact match',
        citations: [3],
      },
    ],
    verdicts: [{ checkerId: 'tool-access', verdict: 'PASS' }],
    usage: { tokens: 100, costUsd: 0.01, wallSeconds: 0.5, turns: 2 },
    runner: { name: 'mock-scripted', kind: 'mock' },
    tracePath: 'traces/toy/arith-add.t0.jsonl',
    eventCount: 5,
    ...overrides,
  })
}

describe('explainTrial', () => {
  it('is a single headline for a clean trial: passing scores and PASS verdicts say nothing', () => {
    expect(explainTrial(record())).toBe('arith-add #0: passed (terminatedBy completed)')
  })

  it('lists failed scores and every policy finding with the trace steps they cite', () => {
    const failed = record({
      taskId: 'forbidden-tool',
      trial: 2,
      outcome: 'policy_violation',
      passed: false,
      scores: [
        {
          evaluatorId: 'exact-match',
          kind: 'deterministic',
          score: 0,
          passed: false,
          latencyMs: 1,
          explanation: 'expected "72", got "81"',
          citations: [4, 5],
        },
        {
          evaluatorId: 'judge',
          kind: 'llm_judge',
          score: 0.25,
          passed: false,
          latencyMs: 1,
          explanation: 'vague',
        },
        {
          evaluatorId: 'contains',
          kind: 'deterministic',
          score: 1,
          passed: true,
          latencyMs: 1,
          explanation: 'ok',
          citations: [5],
        },
      ],
      verdicts: [
        {
          checkerId: 'tool-access',
          verdict: 'FAIL',
          findings: [
            {
              severity: 'FAIL',
              message: 'tool "delete_database" is denied; called at step 3',
              citations: [3],
            },
          ],
        },
        {
          checkerId: 'cost-ceiling',
          verdict: 'WARN',
          findings: [{ severity: 'WARN', message: 'close to the ceiling' }],
        },
        { checkerId: 'quiet', verdict: 'PASS', findings: [] },
      ],
      warnings: ['teardown failed: disk full'],
    })
    expect(explainTrial(failed)).toBe(
      [
        'forbidden-tool #2: policy_violation (terminatedBy completed)',
        '  exact-match: 0 — expected "72", got "81" (steps 4, 5)',
        '  judge: 0.25 — vague',
        '  policy tool-access FAIL: tool "delete_database" is denied; called at step 3 (steps 3)',
        '  policy cost-ceiling WARN: close to the ceiling',
        '  warning: teardown failed: disk full',
      ].join('\n'),
    )
  })

  it('shows the agent error, and n/a when the trial never produced a result', () => {
    const crashed = record({
      outcome: 'agent_error',
      passed: false,
      result: { ...result, success: false, terminatedBy: 'agent_error', error: 'agent crashed: boom' },
      scores: [],
      verdicts: [],
    })
    expect(explainTrial(crashed)).toBe(
      'arith-add #0: agent_error (terminatedBy agent_error)\n  error: agent crashed: boom',
    )
    const threw = record({
      outcome: 'infra_failure',
      passed: false,
      result: {
        ...result,
        success: false,
        terminatedBy: 'agent_error',
        error: 'boom',
        thrown: {
          type: 'TypeError',
          message: 'boom',
          stack: ['parse (evals/a.eval.ts:3:9)', 'evals/a.eval.ts:9:1'],
        },
      },
      scores: [
        {
          evaluatorId: 'judge',
          kind: 'deterministic',
          score: 0,
          passed: false,
          latencyMs: 1,
          explanation: 'evaluator threw: no',
          error: 'evaluator threw: no',
          thrown: { type: 'RangeError', message: 'no', stack: [] },
        },
      ],
      verdicts: [],
    })
    expect(explainTrial(threw)).toBe(
      [
        'arith-add #0: infra_failure (terminatedBy agent_error)',
        '  error: boom [TypeError at parse (evals/a.eval.ts:3:9)]',
        '  judge: 0 — evaluator threw: no [RangeError]',
      ].join('\n'),
    )
    const neverRan = record({
      outcome: 'infra_failure',
      passed: false,
      result: null,
      scores: [],
      verdicts: [],
      warnings: ['prepare failed: no sandbox'],
    })
    expect(explainTrial(neverRan)).toBe(
      'arith-add #0: infra_failure (terminatedBy n/a)\n  warning: prepare failed: no sandbox',
    )
  })
})

describe('isHarnessFailure', () => {
  it('is true exactly for the outcomes that blame the harness, not the agent', () => {
    const harness = TRIAL_OUTCOMES.filter((outcome: TrialOutcome) =>
      isHarnessFailure(record({ outcome, passed: outcome === 'passed' })),
    )
    expect(harness).toEqual(['infra_failure', 'not_evaluated'])
  })
})

describe('passRate', () => {
  it('is the share of passed trials, and 0 (not NaN) for none', () => {
    const pass = record()
    const fail = record({ trial: 1, outcome: 'failed', passed: false })
    expect(passRate([])).toBe(0)
    expect(passRate([pass])).toBe(1)
    expect(passRate([fail])).toBe(0)
    expect(passRate([pass, fail, record({ trial: 2 })])).toBeCloseTo(2 / 3, 12)
    expect(passRate([pass, fail])).toBe(0.5)
  })

  it('counts the passed flag, not the outcome name', () => {
    // The engine keeps them in step; the gate trusts the flag the record carries.
    expect(passRate([record({ outcome: 'passed', passed: false })])).toBe(0)
  })
})

describe('trialHeadline', () => {
  it('gives the outcome, the mean evaluator score and how the trial ended', () => {
    const two = record({
      outcome: 'failed',
      passed: false,
      scores: [
        { evaluatorId: 'a', kind: 'deterministic', score: 1, passed: true, latencyMs: 1, explanation: '' },
        { evaluatorId: 'b', kind: 'deterministic', score: 0.5, passed: false, latencyMs: 1, explanation: '' },
      ],
    })
    expect(trialHeadline(two)).toBe('failed · score 0.75 · completed')
    expect(trialHeadline(record({ outcome: 'not_evaluated', passed: false, result: null, scores: [] }))).toBe(
      'not_evaluated · score n/a · not run',
    )
  })
})
