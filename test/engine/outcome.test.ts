import { describe, expect, it } from 'vitest'
import type { AgentResult, EvaluatorScore, PolicyVerdict, TerminatedBy } from '../../src/core/index.ts'
import { classifyOutcome, isLimitTermination } from '../../src/engine/index.ts'

function result(terminatedBy: TerminatedBy, success = terminatedBy === 'completed'): AgentResult {
  return {
    success,
    finalAnswer: null,
    artifacts: [],
    error: null,
    totalCostUsd: 0,
    totalTokens: 0,
    turns: 0,
    wallSeconds: 0,
    terminatedBy,
  }
}

const failing: EvaluatorScore = {
  evaluatorId: 'e',
  kind: 'deterministic',
  score: 0,
  passed: false,
  costUsd: 0,
  latencyMs: 1,
  explanation: '',
  citations: [],
  findings: [],
  error: null,
}
const passing: EvaluatorScore = { ...failing, score: 1, passed: true }
const fail: PolicyVerdict = { checkerId: 'p', verdict: 'FAIL', findings: [] }
const warn: PolicyVerdict = { checkerId: 'p', verdict: 'WARN', findings: [] }

describe('classifyOutcome', () => {
  it('follows the priority not_evaluated > infra > interrupted > agent_error > limit > policy > failed > passed', () => {
    const everythingWrong = { scores: [failing], verdicts: [fail], harnessFailed: true }
    expect(classifyOutcome({ ...everythingWrong, result: null })).toBe('not_evaluated')
    expect(classifyOutcome({ ...everythingWrong, result: result('interrupted') })).toBe('infra_failure')
    const noHarness = { ...everythingWrong, harnessFailed: false }
    expect(classifyOutcome({ ...noHarness, result: result('infra_failure') })).toBe('infra_failure')
    expect(classifyOutcome({ ...noHarness, result: result('interrupted') })).toBe('interrupted')
    expect(classifyOutcome({ ...noHarness, result: result('agent_error') })).toBe('agent_error')
    for (const limit of ['limit_tokens', 'limit_turns', 'limit_time', 'limit_cost'] as const) {
      expect(classifyOutcome({ ...noHarness, result: result(limit) })).toBe('limit_exceeded')
    }
    expect(classifyOutcome({ ...noHarness, result: result('completed') })).toBe('policy_violation')
    expect(classifyOutcome({ ...noHarness, verdicts: [warn], result: result('completed') })).toBe('failed')
    expect(
      classifyOutcome({
        scores: [passing],
        verdicts: [warn],
        harnessFailed: false,
        result: result('completed'),
      }),
    ).toBe('passed')
  })

  it('fails an unsuccessful run even when every evaluator passes', () => {
    expect(
      classifyOutcome({
        scores: [passing],
        verdicts: [],
        harnessFailed: false,
        result: result('completed', false),
      }),
    ).toBe('failed')
  })
})

describe('isLimitTermination', () => {
  it('is true for the four limits only', () => {
    expect(
      ['limit_tokens', 'limit_turns', 'limit_time', 'limit_cost'].every((t) =>
        isLimitTermination(t as TerminatedBy),
      ),
    ).toBe(true)
    for (const t of ['completed', 'agent_error', 'infra_failure', 'interrupted'] as const) {
      expect(isLimitTermination(t)).toBe(false)
    }
  })
})
