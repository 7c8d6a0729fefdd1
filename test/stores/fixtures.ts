import type { TraceEvent } from '../../src/core/index.ts'

export function planEvent(step: number, taskId = 'task-1', text = `step ${step}`): TraceEvent {
  return {
    runId: 'run-1',
    taskId,
    trial: 0,
    step,
    ts: new Date(Date.UTC(2025, 0, 1, 0, 0, step % 60)).toISOString(),
    kind: 'agent.plan',
    payload: { text },
    tokensDelta: 1,
    costDeltaUsd: 0,
    spanId: '0123456789abcdef',
  }
}
