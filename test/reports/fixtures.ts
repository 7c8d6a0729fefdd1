import type { RunMetadata, RunSummary, ScoredTrial, TrialOutcome } from '../../src/core/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../src/scorers/index.ts'

/** Trials and summaries for the report and console-summary tests, summarised by the real scorer. */

export interface TrialSpec {
  taskId: string
  trial?: number
  passed?: boolean
  outcome?: TrialOutcome
  benchmark?: string
  category?: string
  /** One evaluator score per entry: `exact-match`, `judge`, … in order. */
  scores?: readonly number[]
  costUsd?: number
  tokens?: number
}

const EVALUATORS = ['exact-match', 'judge', 'trace-quality']

export function scoredTrial(spec: TrialSpec): ScoredTrial {
  const passed = spec.passed ?? spec.outcome === 'passed'
  const outcome = spec.outcome ?? (passed ? 'passed' : 'failed')
  const infra = outcome === 'infra_failure'
  const costUsd = spec.costUsd ?? 0.01
  const tokens = spec.tokens ?? 100
  return {
    benchmark: { id: spec.benchmark ?? 'toy', version: '1.0.0', datasetChecksum: 'a'.repeat(64) },
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
      : (spec.scores ?? [passed ? 1 : 0]).map((score, i) => ({
          evaluatorId: EVALUATORS[i] ?? `e${i}`,
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
    runner: { name: 'mock-scripted', kind: 'mock', config: {} },
    tracePath: `traces/${spec.taskId}.t${spec.trial ?? 0}.jsonl`,
    eventCount: 5,
    warnings: [],
    labels: spec.category === undefined ? {} : { category: spec.category },
  }
}

/** `trials` trials of a task, the first `passed` of them passing. */
export function taskTrials(taskId: string, trials: number, passed: number, extra: Partial<TrialSpec> = {}) {
  return Array.from({ length: trials }, (_, trial) =>
    scoredTrial({ taskId, trial, passed: trial < passed, ...extra }),
  )
}

/** The acceptance scenario: 50 tasks × 10 trials, 49 passing every trial and `toy/broken` never passing. */
export function acceptanceTrials(): ScoredTrial[] {
  const trials: ScoredTrial[] = []
  for (let i = 0; i < 49; i++) trials.push(...taskTrials(`task-${String(i).padStart(2, '0')}`, 10, 10))
  trials.push(...taskTrials('broken', 10, 0))
  return trials
}

export function summarize(trials: readonly ScoredTrial[]): RunSummary {
  return summarizeTrials(trials, DEFAULT_SUMMARY_SETTINGS)
}

export function metadataFor(trials: readonly ScoredTrial[], runId = 'run-candidate'): RunMetadata {
  const runner = { name: 'mock-scripted', kind: 'mock', config: {} }
  const benchmark = { id: 'toy', version: '1.0.0', datasetChecksum: 'a'.repeat(64) }
  return {
    schemaVersion: 2,
    runId,
    status: 'complete',
    labels: {},
    target: runner,
    targets: [runner],
    benchmark,
    benchmarks: [benchmark],
    startedAt: '2025-01-02T03:04:05.000Z',
    finishedAt: '2025-01-02T03:04:15.000Z',
    durationSec: 10,
    sdkVersion: '0.1.0',
    git: { sha: null, dirty: null },
    node: 'v20.19.0',
    vitest: '4.1.12',
    configHash: 'd'.repeat(64),
    seed: null,
    shard: null,
    vitestProject: 'evals',
    testNamePattern: null,
    trialCount: trials.length,
  }
}

/** The section of a report under `## heading`, up to the next `## ` heading. */
export function section(report: string, heading: string): string {
  const start = report.indexOf(`\n## ${heading}\n`)
  if (start < 0) return ''
  const rest = report.slice(start + 1)
  const end = rest.indexOf('\n## ', 1)
  return end < 0 ? rest : rest.slice(0, end)
}

/** The rows of the first table in `text` (after its header and rule), split into cells on unescaped pipes. */
export function tableRows(text: string): string[][] {
  const lines = text.split('\n')
  const first = lines.findIndex((line) => line.startsWith('|'))
  if (first < 0) return []
  const table: string[] = []
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break
    table.push(line)
  }
  return table.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim()),
  )
}
