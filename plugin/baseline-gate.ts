import { it } from 'vitest'
import {
  COMPARISON_META_KEY,
  type BenchmarkInfo,
  type ProvidedRun,
  type TrialRecord,
} from '../src/core/index.ts'
import type { CompareOptions } from '../src/scorers/index.ts'

/** A benchmark's baseline: a bundle folder or `latest`, and how to compare with it. */
export interface BaselineGate {
  spec: string
  options: CompareOptions
}

/** The benchmark's own baseline wins over the run-level one (`--baseline`, AGENTEVALOPS_BASELINE). */
export function baselineGateFor(
  own: string | undefined,
  ownOptions: CompareOptions | undefined,
  run: ProvidedRun | undefined,
): BaselineGate | undefined {
  if (own !== undefined) return { spec: own, options: ownOptions ?? {} }
  if (run?.baseline) return { spec: run.baseline.spec, options: { ...run.baseline.options, ...ownOptions } }
  return undefined
}

/**
 * A last, sequential case that compares the benchmark's finished trials with the baseline bundle and fails on
 * NO_GO (which `failOnBroken` extends to any broken task), naming the broken and regressed tasks; a baseline that is missing or of another benchmark fails it with the reason.
 * The comparison goes to the reporter in the case's meta.
 */
export function registerBaselineGate(
  gate: BaselineGate,
  benchmark: () => BenchmarkInfo,
  finished: readonly TrialRecord[],
  run: () => ProvidedRun,
): void {
  it(`baseline: no regression vs ${gate.spec}`, async ({ task, annotate }) => {
    if (finished.length === 0) return
    const { runId, runsDir } = run()
    // Loaded only here: a run without a baseline never loads the bundle reader into its workers.
    const { compareWithBaseline } = await import('../reporters/baseline.ts')
    const { comparison, baselineDir } = await compareWithBaseline(
      { spec: gate.spec, runsDir, options: gate.options },
      { runId, benchmarks: [benchmark()], trials: finished },
    )
    task.meta[COMPARISON_META_KEY] = JSON.parse(JSON.stringify(comparison)) as typeof comparison
    // JUnit writes it as a property of this case, so CI dashboards show the verdict beside the trials' scores.
    await annotate(comparison.verdict, 'agentevalops.verdict')
    if (comparison.verdict === 'NO_GO') {
      const failing = [comparison.overall, ...comparison.evaluators].filter((m) => m.verdict === 'NO_GO')
      const lines = failing.map((m) => `  ${m.evaluatorId ?? 'pass rate'}: ${m.reason}`)
      const { broken } = comparison
      if (comparison.settings.failOnBroken && broken.length > 0)
        lines.push(`  ${broken.length} broken (failOnBroken): always passed in the baseline, never pass now`)
      const regressed = comparison.overall.regressions.map((r) => r.taskId)
      throw new Error(
        `NO_GO against baseline ${comparison.baseline.runId} (${baselineDir})\n${lines.join('\n')}` +
          (broken.length > 0
            ? `\n  broken tasks: ${broken.map((b) => `${b.taskId} (${b.baselineTrials}/${b.baselineTrials} → 0/${b.candidateTrials})`).join(', ')}`
            : '') +
          (regressed.length > 0 ? `\n  regressed tasks: ${regressed.join(', ')}` : ''),
      )
    }
  })
}
