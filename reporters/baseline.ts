import { findBaseline, readBundle } from '../src/bundles/index.ts'
import type { BaselineComparison } from '../src/core/index.ts'
import { compareToBaseline, type ComparedRun, type CompareOptions } from '../src/scorers/index.ts'

export interface BaselineRequest {
  /** A bundle folder, or `latest` (the newest complete bundle of the same benchmarks in runsDir). */
  spec: string
  runsDir: string
  options?: CompareOptions | undefined
}

/**
 * Reads the baseline bundle (strictly: a baseline that fails validation is no evidence) and compares the candidate
 * with it. Throws AgentEvalOpsError BUNDLE_NOT_FOUND / BUNDLE_INVALID / COMPARE_MISMATCH with what to do.
 */
export async function compareWithBaseline(
  request: BaselineRequest,
  candidate: ComparedRun,
): Promise<{ comparison: BaselineComparison; baselineDir: string }> {
  const baselineDir = await findBaseline(request.spec, request.runsDir, {
    benchmarkIds: candidate.benchmarks.map((b) => b.id),
    excludeRunId: candidate.runId,
  })
  const bundle = await readBundle(baselineDir)
  const baseline: ComparedRun = {
    runId: bundle.metadata.runId,
    benchmarks: bundle.metadata.benchmarks,
    trials: bundle.scores.trials,
  }
  return { comparison: compareToBaseline(baseline, candidate, request.options), baselineDir }
}
