import type { ComparisonSettings, ComparisonVerdict, MetricComparison, TaskRef } from '../../core/index.ts'
import {
  clopperPearsonUpper,
  mcnemarExact,
  mean,
  minimumDetectableEffect,
  pairedPermutationTest,
  signTest,
  standardDeviation,
  tInterval,
} from '../stats/index.ts'

/** One paired task: its per-task value (pass rate or mean score) and trial count on each side. */
export interface PairedValue {
  benchmarkId: string
  taskId: string
  baseline: number
  candidate: number
  /** Whether both sides are a single pass/fail trial: then McNemar applies. */
  binary: boolean
}

/**
 * Compares one metric task by task. The verdict rests on McNemar's exact test when every pair is a single
 * pass/fail trial on each side, else on the paired permutation test over per-task differences. GO needs the
 * interval of the change to rule out a drop larger than maxDrop, and so does the exact bound on the share of tasks
 * that regress: with few pairs and no regression among them the interval collapses to zero width while the exact
 * bound (about 3/n) stays wide, and then the verdict is INSUFFICIENT_EVIDENCE.
 */
export function compareMetric(
  evaluatorId: string | null,
  pairs: readonly PairedValue[],
  settings: ComparisonSettings,
): MetricComparison {
  const deltas = pairs.map((p) => p.candidate - p.baseline)
  const regressions = pairs.filter((p) => p.candidate < p.baseline).map(taskRef)
  const improvements = pairs.filter((p) => p.candidate > p.baseline).map(taskRef)
  const binary = pairs.length > 0 && pairs.every((p) => p.binary)
  const mcnemar = binary
    ? {
        regressions: regressions.length,
        improvements: improvements.length,
        pValue: mcnemarExact(regressions.length, improvements.length),
      }
    : null
  const permutation = pairedPermutationTest(deltas, { seed: settings.seed })
  const pValue = mcnemar ? mcnemar.pValue : permutation.pValue
  const delta = mean(deltas)
  // A change of a rate lies in [−1, 1].
  const raw = tInterval(deltas, 1 - settings.alpha)
  const deltaCi = raw && { lower: Math.max(-1, raw.lower), upper: Math.min(1, raw.upper) }
  const base = {
    evaluatorId,
    pairs: pairs.length,
    baselineMean: mean(pairs.map((p) => p.baseline)),
    candidateMean: mean(pairs.map((p) => p.candidate)),
    delta,
    deltaCi,
    mcnemar,
    signTestP: signTest(deltas),
    permutation,
    test: mcnemar ? ('mcnemar' as const) : ('permutation' as const),
    pValue,
    minimumDetectableEffect: detectableEffect(deltas, settings.alpha),
    regressionRateUpper: clopperPearsonUpper(regressions.length, pairs.length, 1 - settings.alpha),
    regressions,
    improvements,
  }
  return { ...base, ...verdictOf(base, settings) }
}

function taskRef(p: PairedValue): TaskRef {
  return { benchmarkId: p.benchmarkId, taskId: p.taskId, baseline: p.baseline, candidate: p.candidate }
}

/**
 * With no observed variation the formula would claim any change detectable; the spread one discordant pair
 * would give (1/√n) is the floor, so the figure stays an honest lower bound of what the sample can see.
 */
function detectableEffect(deltas: readonly number[], alpha: number): number | null {
  const n = deltas.length
  const sd = standardDeviation(deltas)
  if (sd === null) return null
  return minimumDetectableEffect(Math.max(sd, 1 / Math.sqrt(n)), n, { alpha })
}

function verdictOf(
  c: Pick<
    MetricComparison,
    'pairs' | 'delta' | 'deltaCi' | 'pValue' | 'regressions' | 'improvements' | 'regressionRateUpper'
  >,
  settings: ComparisonSettings,
): { verdict: ComparisonVerdict; reason: string } {
  const pct = (x: number) => `${(x * 100).toFixed(1)} pp`
  if (c.pairs < settings.minPairs || c.delta === null || c.regressionRateUpper === null) {
    return {
      verdict: 'INSUFFICIENT_EVIDENCE',
      reason: `${c.pairs} paired task${c.pairs === 1 ? '' : 's'}; at least ${settings.minPairs} are needed`,
    }
  }
  const drop = -c.delta
  const p = `p = ${c.pValue.toPrecision(3)}`
  const tally = `${c.regressions.length} regression${c.regressions.length === 1 ? '' : 's'}, ${c.improvements.length} improvement${c.improvements.length === 1 ? '' : 's'}`
  if (c.pValue < settings.alpha && drop > settings.maxDrop) {
    return {
      verdict: 'NO_GO',
      reason: `dropped ${pct(drop)} (${tally}; ${p} < ${settings.alpha}), more than the ${pct(settings.maxDrop)} allowed`,
    }
  }
  if (c.deltaCi && c.deltaCi.lower >= -settings.maxDrop) {
    const bound = exactBound(c, settings)
    if (!bound.rulesOut) {
      return {
        verdict: 'INSUFFICIENT_EVIDENCE',
        reason: `change ${signed(c.delta)} (${tally}), but ${bound.text}, more than the ${pct(settings.maxDrop)} allowed${bound.needed}`,
      }
    }
    return {
      verdict: 'GO',
      reason: `change ${signed(c.delta)} (${tally}); the ${confidence(settings)} interval rules out a drop over ${pct(settings.maxDrop)}, and ${bound.text}`,
    }
  }
  return {
    verdict: 'INCONCLUSIVE',
    reason: `change ${signed(c.delta)} (${tally}; ${p}); a drop over ${pct(settings.maxDrop)} can be neither shown nor ruled out`,
  }
}

/**
 * The exact side of a GO: the pass rate can drop by at most the share of tasks that regress less the share that
 * improved, and the Clopper–Pearson bound of the first holds however few regressions were seen.
 */
function exactBound(
  c: Pick<MetricComparison, 'pairs' | 'regressions' | 'improvements' | 'regressionRateUpper'>,
  settings: ComparisonSettings,
): { rulesOut: boolean; text: string; needed: string } {
  const upper = c.regressionRateUpper!
  const improved = c.improvements.length / c.pairs
  const net = upper - improved
  const share = `${(upper * 100).toFixed(1)}%`
  const text =
    `up to ${share} of tasks could regress (exact one-sided ${confidence(settings)} Clopper–Pearson bound over ` +
    `${c.pairs} pairs)` +
    (c.improvements.length > 0
      ? `, ${(net * 100).toFixed(1)}% net of the ${c.improvements.length} improved`
      : '')
  // With nothing regressed the bound is 1 − α^(1/n): this many clean pairs bring it within maxDrop.
  const clean =
    settings.maxDrop > 0 ? Math.ceil(Math.log(settings.alpha) / Math.log1p(-settings.maxDrop)) : null
  const needed =
    c.regressions.length === 0 && c.improvements.length === 0 && clean !== null
      ? `; ${clean} paired tasks without a regression would rule it out`
      : ''
  return { rulesOut: net <= settings.maxDrop, text, needed }
}

function signed(delta: number): string {
  return `${delta >= 0 ? '+' : '−'}${(Math.abs(delta) * 100).toFixed(1)} pp`
}

function confidence(settings: ComparisonSettings): string {
  return `${Math.round((1 - settings.alpha) * 1000) / 10}%`
}
