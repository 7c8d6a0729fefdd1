import { AgentEvalOpsError, type BaselineComparison, type TaskRef } from '../../core/index.ts'
import { comparisonReason } from '../../reports/summary-text.ts'
import { compareToBaseline } from '../../scorers/index.ts'
import type { ComparedTask, CompareResponse } from '../api.ts'
import type { IndexedRun } from '../catalog/indexed-run.ts'
import { readRunRecords, type RunRecords } from './run-records.ts'
import { byText } from './series.ts'

/**
 * `agentevalops compare <baseline> <candidate>` for two runs of the folder, with its default settings: the same
 * paired comparison (compareToBaseline, which the command reaches through compareWithBaseline) over the same trial
 * records, so the verdict, change and p-value are the command's. Runs of different benchmarks, or whose shared
 * tasks changed, are refused as the command refuses them (COMPARE_MISMATCH, with its message), and so is a monitor
 * window as the candidate (the command compares windows unpaired). A run that is not valid, or whose metadata.json
 * or scores.json changed since it was sealed, is BUNDLE_INVALID; one gone from the folder is BUNDLE_NOT_FOUND.
 */
export async function compareRunFolders(
  runsDir: string,
  baseline: IndexedRun,
  candidate: IndexedRun,
): Promise<CompareResponse> {
  const [base, cand] = await Promise.all([
    readRunRecords(runsDir, baseline),
    readRunRecords(runsDir, candidate),
  ])
  refuseMonitorWindows(base, cand)
  const comparison = compareToBaseline(sideOf(base), sideOf(cand))
  return response(comparison, baseline.entry.run, candidate.entry.run)
}

function sideOf(records: RunRecords) {
  return { runId: records.metadata.runId, benchmarks: records.metadata.benchmarks, trials: records.trials }
}

/**
 * A monitor window is compared by the command with the earlier window, unpaired (their traces differ, nothing
 * pairs): not the paired comparison this answers with.
 */
function refuseMonitorWindows(base: RunRecords, cand: RunRecords): void {
  if (cand.metadata.status !== 'monitor') return
  throw new AgentEvalOpsError(
    'COMPARE_MISMATCH',
    `${cand.dir} is a monitor window: windows are not compared task by task, their traces differ and nothing pairs.`,
    {
      hint: `Compare it with the earlier window: agentevalops compare ${base.dir} ${cand.dir} (unpaired tests).`,
    },
  )
}

function response(comparison: BaselineComparison, baseline: string, candidate: string): CompareResponse {
  const { overall } = comparison
  const key = (t: { benchmarkId: string; taskId: string }) => `${t.benchmarkId}/${t.taskId}`
  const broken = new Set(comparison.broken.map(key))
  const listed = (refs: readonly TaskRef[], change: (t: TaskRef) => number): ComparedTask[] =>
    refs
      .filter((t) => !broken.has(key(t)))
      .sort((a, b) => change(b) - change(a) || byText(key(a), key(b)))
      .map((t) => ({ taskKey: key(t), baseline: t.baseline, candidate: t.candidate }))
  return {
    baseline,
    candidate,
    verdict: comparison.verdict,
    reason: comparisonReason(comparison),
    pairedTasks: comparison.pairedTasks,
    delta: overall.delta,
    deltaCi: overall.deltaCi,
    pValue: overall.pValue,
    test: overall.test,
    // Every baseline trial passed and none passes now: 100% → 0% by definition.
    broken: [...broken].sort(byText).map((taskKey) => ({ taskKey, baseline: 1, candidate: 0 })),
    regressed: listed(overall.regressions, (t) => t.baseline - t.candidate),
    improved: listed(overall.improvements, (t) => t.candidate - t.baseline),
    baselineOnly: comparison.baselineOnly,
    candidateOnly: comparison.candidateOnly,
    changedDatasets: comparison.changedDatasets,
  }
}
