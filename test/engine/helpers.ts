import {
  defineTask,
  type AgentOutput,
  type AgentRunner,
  type BenchmarkInfo,
  type EnvHandle,
  type Evaluator,
  type PolicyChecker,
  type RunContext,
  type TaskSpec,
  type TraceEvent,
} from '../../src/core/index.ts'
import type { RunTrialOptions } from '../../src/engine/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'

export const task: TaskSpec = defineTask({
  id: 'math/add one',
  benchmark: 'toy',
  prompt: 'What is 1+1?',
  expected: '2',
})
export const benchmark: BenchmarkInfo = { id: 'toy', version: '1', datasetChecksum: 'abc' }

export function inlineRunner(
  run: (ctx: RunContext, task: TaskSpec, env: EnvHandle) => Promise<AgentOutput> | AgentOutput,
): AgentRunner {
  return {
    runnerInfo: () => ({ name: 'inline', kind: 'test', config: {} }),
    run: async (t, env, ctx) => run(ctx, t, env),
  }
}

/** Plans, calls the model once, answers "2". */
export const answeringRunner = inlineRunner((ctx) => {
  ctx.emit('agent.plan', { text: 'add' })
  ctx.emit('agent.model_call', { model: 'm' }, { tokens: 10, costUsd: 0.001 })
  ctx.emit('agent.final_answer', { answer: '2' })
  return { finalAnswer: '2' }
})

export function fixedEvaluator(passed: boolean, id = 'exact'): Evaluator {
  return {
    id,
    kind: 'deterministic',
    evaluate: () => ({
      score: passed ? 1 : 0,
      passed,
      explanation: passed ? 'matches' : 'differs',
      costUsd: 0,
      citations: [],
    }),
  }
}

export function fixedChecker(verdict: 'PASS' | 'WARN' | 'FAIL', id = 'policy'): PolicyChecker {
  return {
    id,
    check: () => ({
      verdict,
      findings: verdict === 'PASS' ? [] : [{ message: 'found something', severity: verdict, citations: [0] }],
    }),
  }
}

export function baseOptions(overrides: Partial<RunTrialOptions> = {}): RunTrialOptions {
  return {
    runId: 'run-1',
    benchmark,
    task,
    trial: 0,
    runner: answeringRunner,
    traceStore: new MemoryTraceStore(),
    ...overrides,
  }
}

export function kinds(events: readonly TraceEvent[]): string[] {
  return events.map((e) => e.kind)
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
