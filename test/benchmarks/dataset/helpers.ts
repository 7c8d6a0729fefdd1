import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import {
  AgentEvalOpsError,
  isAgentEvalOpsError,
  type GradeContext,
  type TaskSpec,
  type TraceEvent,
  type TrialView,
} from '../../../src/core/index.ts'

export const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** A temp folder for datasets written by a test; `remove` when done. */
export async function tempFolder(): Promise<{
  dir: string
  write(name: string, text: string): Promise<string>
  remove(): Promise<void>
}> {
  const dir = await mkdtemp(join(tmpdir(), 'agentevalops-dataset-'))
  return {
    dir,
    async write(name, text) {
      const path = join(dir, name)
      await writeFile(path, text)
      return path
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  }
}

/** The error `run` throws or rejects with, checked to be an AgentEvalOpsError of `code`. */
export async function errorOf(
  run: () => unknown,
  code: AgentEvalOpsError['code'] = 'DATASET_INVALID',
): Promise<AgentEvalOpsError> {
  let caught: unknown
  try {
    await run()
  } catch (e) {
    caught = e
  }
  expect(caught, 'expected an error').toBeInstanceOf(AgentEvalOpsError)
  expect(isAgentEvalOpsError(caught, code), `code ${(caught as AgentEvalOpsError).code}`).toBe(true)
  return caught as AgentEvalOpsError
}

/** A finished trial of `task` whose final answer (step 1) is `answer`, or that gave none. */
export function viewOf(task: TaskSpec, answer: string | null): TrialView {
  const base = {
    runId: 'run-1',
    taskId: task.id,
    trial: 0,
    ts: '2026-01-01T00:00:00.000Z',
    costDeltaUsd: 0,
    tokensDelta: 0,
    spanId: '0123456789abcdef',
  }
  const events: TraceEvent[] = [{ ...base, step: 0, kind: 'agent.plan', payload: { text: 'think' } }]
  if (answer !== null) events.push({ ...base, step: 1, kind: 'agent.final_answer', payload: { answer } })
  return {
    task,
    result: {
      success: answer !== null,
      finalAnswer: answer,
      artifacts: [],
      error: null,
      totalCostUsd: 0,
      totalTokens: 0,
      turns: 1,
      wallSeconds: 0,
      terminatedBy: 'completed',
    },
    events,
    env: {},
  }
}

export const gradeContext: GradeContext = {
  signal: new AbortController().signal,
  timeoutSeconds: 10,
  saveArtifact: () => Promise.reject(new Error('a dataset grader saves no artifacts')),
  warn: () => {},
}
