import { hrTimeToMilliseconds } from '@opentelemetry/core'
import type { EvaluatorScore, TraceEvent, TrialRecord } from '../../src/core/index.ts'
import { makeTrials } from '../bundles/fixtures.ts'
import type { DecodedSpan } from './decoded-spans.ts'

/** The fixture's clock: every time below is an offset in ms from here. */
export const T0 = Date.parse('2025-01-02T03:04:05.000Z')
export const at = (offsetMs: number): string => new Date(T0 + offsetMs).toISOString()

/** A fake Anthropic key shape the redactor knows (`sk-ant-` and 16+ key characters). */
export const FAKE_KEY = 'sk-ant-api03-AAAAbbbbCCCCdddd1234'

export const GRADE_SCORE: EvaluatorScore = {
  evaluatorId: 'toy-grade',
  kind: 'deterministic',
  score: 1,
  passed: true,
  costUsd: 0,
  latencyMs: 50,
  explanation: 'graded by the benchmark',
  citations: [],
  findings: [],
  error: null,
}

/** One trial of the fixture run, with a grading score beside its exact-match one (latency 100 ms). */
export function timelineTrial(): TrialRecord {
  const trial = makeTrials({ tasks: ['task-0'], trials: 1 })[0]!
  return {
    ...trial,
    runner: { name: 'claude-agent', kind: 'anthropic', config: { model: 'claude-x' } },
    scores: [GRADE_SCORE, { ...trial.scores[0]!, latencyMs: 100 }],
  }
}

/**
 * The trial's events at known times: a model call (latency 250 ms), a tool call and its result (paired by id,
 * its arguments holding a secret), a failed model attempt, a model call with no latency, the end, the scores
 * (recorded together at +900) and the policy verdict (+905).
 */
export function timelineEvents(trial: TrialRecord): TraceEvent[] {
  let step = 0
  const ev = <E extends Pick<TraceEvent, 'kind' | 'payload'>>(offsetMs: number, e: E, extra: object = {}) =>
    ({
      runId: trial.runId,
      benchmark: trial.benchmark.id,
      taskId: trial.taskId,
      trial: trial.trial,
      step: step++,
      ts: at(offsetMs),
      costDeltaUsd: 0,
      tokensDelta: 0,
      spanId: step.toString(16).padStart(16, '0'),
      ...e,
      ...extra,
    }) as TraceEvent
  return [
    ev(0, { kind: 'agent.plan', payload: { text: 'add the numbers' } }),
    ev(
      300,
      {
        kind: 'agent.model_call',
        payload: {
          model: 'claude-x',
          inputTokens: 50,
          outputTokens: 10,
          stopReason: 'tool_use',
          text: 'let me compute',
          latencyMs: 250,
          cacheReadInputTokens: 7,
        },
      },
      { costDeltaUsd: 0.006, tokensDelta: 60 },
    ),
    ev(310, {
      kind: 'agent.tool_call',
      payload: { tool: 'calc', args: { expr: '2+2', token: FAKE_KEY }, callId: 'c1' },
    }),
    ev(360, { kind: 'agent.tool_result', payload: { tool: 'calc', result: 4, callId: 'c1' } }),
    ev(400, {
      kind: 'agent.model_call',
      payload: { model: 'claude-x', status: 'error', attempt: 1, error: 'overloaded', httpStatus: 529 },
    }),
    ev(
      700,
      {
        kind: 'agent.model_call',
        payload: { model: 'claude-x', inputTokens: 70, outputTokens: 5, stopReason: 'end_turn', text: '4' },
      },
      { costDeltaUsd: 0.004, tokensDelta: 75 },
    ),
    ev(710, { kind: 'agent.final_answer', payload: { answer: '4' } }),
    ev(720, { kind: 'agent.terminal', payload: { terminatedBy: 'completed', success: true, error: null } }),
    ev(900, { kind: 'evaluator.score', payload: { evaluatorId: 'toy-grade', score: 1, passed: true } }),
    ev(900, { kind: 'evaluator.score', payload: { evaluatorId: 'exact-match', score: 1, passed: true } }),
    ev(905, { kind: 'policy.verdict', payload: { checkerId: 'tool-policy', verdict: 'PASS' } }),
  ]
}

/** The record with phase timing, without tripping excess-property checks on records of any schema age. */
export function withTiming(
  trial: TrialRecord,
  timing: { startedAt: string; phases: { name: string; startMs: number; durationMs: number }[] },
): TrialRecord {
  return Object.assign({}, trial, { timing })
}

export const ms = (span: DecodedSpan) => ({
  start: Math.round(hrTimeToMilliseconds(span.startTime) - T0),
  end: Math.round(hrTimeToMilliseconds(span.endTime) - T0),
})

export function byName(spans: readonly DecodedSpan[], name: string): DecodedSpan[] {
  return spans.filter((s) => s.name === name)
}

export function one(spans: readonly DecodedSpan[], name: string): DecodedSpan {
  const found = byName(spans, name)
  if (found.length !== 1) throw new Error(`expected one span named ${name}, found ${found.length}`)
  return found[0]!
}

export function childrenOf(spans: readonly DecodedSpan[], parent: DecodedSpan): DecodedSpan[] {
  const id = parent.spanContext().spanId
  return spans.filter((s) => s.parentSpanContext?.spanId === id)
}

export function parentOf(spans: readonly DecodedSpan[], child: DecodedSpan): DecodedSpan | undefined {
  const id = child.parentSpanContext?.spanId
  return spans.find((s) => s.spanContext().spanId === id)
}
