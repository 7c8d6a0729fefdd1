import type { RunMetadata, RunSummary, ScoredTrial } from '../../src/core/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../src/scorers/index.ts'
import { makeMetadata } from '../bundles/fixtures.ts'
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

/** The bundle fixtures' metadata, without labels or git: the report tests assert on a bare header. */
export function metadataFor(trials: readonly ScoredTrial[], runId = 'run-candidate'): RunMetadata {
  return { ...makeMetadata(trials, { runId }), labels: {}, git: { sha: null, dirty: null } }
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
