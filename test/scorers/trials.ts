import type { EvaluatorScore, TrialOutcome, TrialRecord } from '../../src/core/index.ts'

export interface TrialSpec {
  task: string
  trial?: number
  passed: boolean
  outcome?: TrialOutcome
  benchmark?: string
  datasetChecksum?: string
  category?: string
  costUsd?: number
  tokens?: number
  wallSeconds?: number
  /** Evaluator id → score (passed when ≥ 0.5). */
  scores?: Record<string, number>
}

/** A minimal valid trial record for statistics tests. */
export function trial(spec: TrialSpec): TrialRecord {
  const outcome = spec.outcome ?? (spec.passed ? 'passed' : 'failed')
  const scores: EvaluatorScore[] = Object.entries(spec.scores ?? {}).map(([evaluatorId, score]) => ({
    evaluatorId,
    kind: 'deterministic',
    score,
    passed: score >= 0.5,
    costUsd: 0,
    latencyMs: 1,
    explanation: '',
    citations: [],
    findings: [],
    error: null,
  }))
  const usage = {
    tokens: spec.tokens ?? 100,
    costUsd: spec.costUsd ?? 0.01,
    wallSeconds: spec.wallSeconds ?? 1,
    turns: 1,
  }
  return {
    runId: 'run',
    benchmark: {
      id: spec.benchmark ?? 'bench',
      version: '1',
      datasetChecksum: spec.datasetChecksum ?? 'd'.repeat(64),
    },
    taskId: spec.task,
    taskChecksum: 'c'.repeat(64),
    trial: spec.trial ?? 0,
    outcome,
    passed: spec.passed,
    result:
      outcome === 'infra_failure'
        ? null
        : {
            success: spec.passed,
            finalAnswer: 'x',
            artifacts: [],
            error: null,
            totalCostUsd: usage.costUsd,
            totalTokens: usage.tokens,
            turns: 1,
            wallSeconds: usage.wallSeconds,
            terminatedBy: outcome === 'agent_error' ? 'agent_error' : 'completed',
          },
    scores,
    verdicts: [],
    usage,
    runner: { name: 'mock', kind: 'mock', config: {} },
    tracePath: `traces/${spec.task}.t${spec.trial ?? 0}.jsonl`,
    eventCount: 3,
    warnings: [],
    labels: spec.category === undefined ? {} : { category: spec.category },
  }
}

/** `n` tasks with one trial each; the tasks listed in `failing` fail. */
export function oneTrialRun(
  n: number,
  failing: ReadonlySet<number> = new Set(),
  benchmark = 'bench',
): TrialRecord[] {
  return Array.from({ length: n }, (_, i) =>
    trial({
      task: `t${String(i).padStart(3, '0')}`,
      passed: !failing.has(i),
      benchmark,
      scores: { exact: failing.has(i) ? 0 : 1 },
    }),
  )
}
