import {
  AgentResult,
  defineTask,
  TraceEvent,
  type JsonValue,
  type TaskInput,
  type TerminatedBy,
  type TraceEventKind,
  type TracePayload,
  type TrialView,
} from '../../src/core/index.ts'

/** One event before stamping: kind, payload, and optionally its usage and time offset. */
export type Draft = {
  [K in TraceEventKind]: {
    kind: K
    payload: TracePayload<K>
    tokens?: number
    costUsd?: number
    atMs?: number
  }
}[TraceEventKind]

interface Usage {
  tokens?: number
  costUsd?: number
  atMs?: number
}

const T0 = Date.parse('2025-01-01T00:00:00.000Z')

/**
 * Stamps drafts into valid trace events: steps from 0, runId/taskId/trial/spanId fixed, one event every 100 ms
 * unless `atMs` says otherwise. Each event is parsed with the core schema, so a fixture can never be malformed.
 */
export function trace(...drafts: Draft[]): TraceEvent[] {
  return drafts.map(
    (d, step) =>
      TraceEvent.parse({
        runId: 'run-test',
        taskId: 'task-test',
        trial: 0,
        step,
        ts: new Date(T0 + (d.atMs ?? step * 100)).toISOString(),
        kind: d.kind,
        payload: d.payload,
        costDeltaUsd: d.costUsd ?? 0,
        tokensDelta: d.tokens ?? 0,
        spanId: '00000000000000ab',
      }) as TraceEvent,
  )
}

export const ev = {
  plan: (text: string, u: Usage = {}): Draft => ({ kind: 'agent.plan', payload: { text }, ...u }),
  model: (u: Usage = {}): Draft => ({ kind: 'agent.model_call', payload: { model: 'm' }, ...u }),
  call: (tool: string, args: JsonValue = {}, u: Usage = {}): Draft => ({
    kind: 'agent.tool_call',
    payload: { tool, args },
    ...u,
  }),
  result: (tool: string, result: JsonValue = null, u: Usage = {}): Draft => ({
    kind: 'agent.tool_result',
    payload: { tool, result },
    ...u,
  }),
  answer: (answer: string, u: Usage = {}): Draft => ({
    kind: 'agent.final_answer',
    payload: { answer },
    ...u,
  }),
  terminal: (terminatedBy: TerminatedBy, u: Usage = {}, error: string | null = null): Draft => ({
    kind: 'agent.terminal',
    payload: { terminatedBy, success: terminatedBy === 'completed', error },
    ...u,
  }),
  score: (evaluatorId: string, passed: boolean, u: Usage = {}): Draft => ({
    kind: 'evaluator.score',
    payload: { evaluatorId, score: passed ? 1 : 0, passed },
    ...u,
  }),
  verdict: (
    checkerId: string,
    verdict: 'PASS' | 'WARN' | 'FAIL',
    findings?: { message: string }[],
  ): Draft => ({
    kind: 'policy.verdict',
    payload: { checkerId, verdict, ...(findings ? { findings } : {}) },
  }),
}

/** A TrialView over `events`; the result's answer and usage default to what the events say. */
export function viewOf(
  events: TraceEvent[],
  overrides: { task?: Partial<TaskInput>; result?: Partial<AgentResult> } = {},
): TrialView {
  const answer = events.filter((e) => e.kind === 'agent.final_answer').at(-1)
  const result = AgentResult.parse({
    success: true,
    finalAnswer: answer?.kind === 'agent.final_answer' ? answer.payload.answer : null,
    error: null,
    totalCostUsd: events.reduce((sum, e) => sum + e.costDeltaUsd, 0),
    totalTokens: events.reduce((sum, e) => sum + e.tokensDelta, 0),
    turns: 0,
    wallSeconds: 0,
    terminatedBy: 'completed',
    ...overrides.result,
  })
  const task = defineTask({ id: 'task-test', benchmark: 'test', prompt: 'p', ...overrides.task })
  return { task, result, events, env: {} }
}
