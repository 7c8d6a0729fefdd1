import type { TrialOutcome, TrialRecord } from '../../src/core/index.ts'

/** Trial records for statistics, report and console-summary tests: small, valid, with what a test varies. */

export interface TrialSpec {
  taskId: string
  trial?: number
  passed?: boolean
  outcome?: TrialOutcome
  benchmark?: string
  category?: string
  /** One evaluator score per entry: `exact-match`, `judge`, … in order. */
  scores?: readonly number[]
  /** Scores by evaluator id, instead of `scores` (passed when ≥ 0.5). */
  named?: Readonly<Record<string, number>>
  datasetChecksum?: string
  costUsd?: number
  tokens?: number
  /** The runner's name (default `mock-scripted`): trials of two runners are two targets. */
  runner?: string
}

export function scoredTrial(spec: TrialSpec): TrialRecord {
  const passed = spec.passed ?? spec.outcome === 'passed'
  const outcome = spec.outcome ?? (passed ? 'passed' : 'failed')
  const infra = outcome === 'infra_failure'
  const costUsd = spec.costUsd ?? 0.01
  const tokens = spec.tokens ?? 100
  return {
    runId: 'run',
    benchmark: {
      id: spec.benchmark ?? 'toy',
      version: '1.0.0',
      datasetChecksum: spec.datasetChecksum ?? 'a'.repeat(64),
    },
    taskId: spec.taskId,
    taskChecksum: 'b'.repeat(64),
    trial: spec.trial ?? 0,
    outcome,
    passed,
    result: infra
      ? null
      : {
          success: passed,
          finalAnswer: passed ? '4' : '5',
          artifacts: [],
          error: null,
          totalCostUsd: costUsd,
          totalTokens: tokens,
          turns: 2,
          wallSeconds: 1,
          terminatedBy: outcome === 'limit_exceeded' ? 'limit_cost' : 'completed',
        },
    scores: infra
      ? []
      : scoreEntries(spec, passed).map(([evaluatorId, score]) => ({
          evaluatorId,
          kind: 'deterministic' as const,
          score,
          passed: score >= 0.5,
          costUsd: 0,
          latencyMs: 1,
          explanation: score >= 0.5 ? 'ok' : 'wrong answer',
          citations: [],
          findings: [],
          error: null,
        })),
    verdicts: [],
    usage: { tokens, costUsd, wallSeconds: 1, turns: 2 },
    runner: { name: spec.runner ?? 'mock-scripted', kind: 'mock', config: {} },
    tracePath: `traces/${spec.taskId}.t${spec.trial ?? 0}.jsonl`,
    eventCount: 5,
    warnings: [],
    labels: spec.category === undefined ? {} : { category: spec.category },
    keys: null,
    reusedFrom: null,
  }
}

const EVALUATORS = ['exact-match', 'judge', 'trace-quality']

function scoreEntries(spec: TrialSpec, passed: boolean): [string, number][] {
  if (spec.named) return Object.entries(spec.named)
  return (spec.scores ?? [passed ? 1 : 0]).map((score, i) => [EVALUATORS[i] ?? `e${i}`, score])
}
