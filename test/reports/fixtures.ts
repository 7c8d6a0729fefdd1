import type { RunMetadata, RunSummary, ScoredTrial } from '../../src/core/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../src/scorers/index.ts'
import { scoredTrial, type TrialSpec } from '../support/trials.ts'

export { scoredTrial, type TrialSpec }

/** Trials and summaries for the report and console-summary tests, summarised by the real scorer. */

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
    resumedFrom: [],
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
