import { normalCdf } from '../stats/distributions.ts'
import type { ScoredTrial } from '../../core/index.ts'
import { CompareOptions } from './options.ts'

/*
 * Two monitor windows hold different traces (a trace is a task), so nothing pairs: each evaluator's pass rate is
 * compared between two independent samples. The test is the two-proportion z-test (pooled), the interval of the
 * change the unpooled Wald interval; both rest on the normal approximation, which is why a window needs
 * `minPairs` scored traces per evaluator before a verdict is given.
 */

export type WindowVerdict = 'GO' | 'NO_GO' | 'INCONCLUSIVE' | 'INSUFFICIENT_EVIDENCE'

export interface WindowMetric {
  /** `pass` (the trials' own pass) or an evaluator id. */
  metric: string
  baseline: { n: number; passRate: number | null; mean: number | null }
  candidate: { n: number; passRate: number | null; mean: number | null }
  /** candidate − baseline pass rate, with its (1 − alpha) interval; null without data on both sides. */
  change: { estimate: number; low: number; high: number } | null
  /** Two-sided p-value of "the pass rates are equal"; null without data on both sides. */
  pValue: number | null
  verdict: WindowVerdict
}

export interface WindowComparison {
  kind: 'windows'
  alpha: number
  maxDrop: number
  minPairs: number
  metrics: WindowMetric[]
  /** NO_GO when any metric is; GO when every one is; else the weakest of the others. */
  verdict: WindowVerdict
}

interface Side {
  n: number
  passed: number
  total: number
}

function collect(trials: readonly ScoredTrial[]): Map<string, Side> {
  const sides = new Map<string, Side>()
  const add = (metric: string, passed: boolean, score: number) => {
    const side = sides.get(metric) ?? { n: 0, passed: 0, total: 0 }
    side.n++
    if (passed) side.passed++
    side.total += score
    sides.set(metric, side)
  }
  for (const trial of trials) {
    if (trial.outcome === 'infra_failure' || trial.outcome === 'interrupted') continue
    add('pass', trial.passed, trial.passed ? 1 : 0)
    for (const score of trial.scores) if (!score.error) add(score.evaluatorId, score.passed, score.score)
  }
  return sides
}

/** The z quantile of 1 − alpha/2, by bisection on normalCdf (alpha is a setting, not a constant). */
function zQuantile(alpha: number): number {
  let low = 0
  let high = 10
  for (let i = 0; i < 80; i++) {
    const mid = (low + high) / 2
    if (normalCdf(mid) < 1 - alpha / 2) low = mid
    else high = mid
  }
  return (low + high) / 2
}

function metricOf(
  metric: string,
  a: Side | undefined,
  b: Side | undefined,
  o: Required<Settings>,
): WindowMetric {
  const view = (s: Side | undefined) => ({
    n: s?.n ?? 0,
    passRate: s && s.n > 0 ? s.passed / s.n : null,
    mean: s && s.n > 0 ? s.total / s.n : null,
  })
  const baseline = view(a)
  const candidate = view(b)
  if (!a || !b || a.n === 0 || b.n === 0)
    return { metric, baseline, candidate, change: null, pValue: null, verdict: 'INSUFFICIENT_EVIDENCE' }
  const p1 = a.passed / a.n
  const p2 = b.passed / b.n
  const estimate = p2 - p1
  const se = Math.sqrt((p1 * (1 - p1)) / a.n + (p2 * (1 - p2)) / b.n)
  const z = zQuantile(o.alpha)
  const change = { estimate, low: estimate - z * se, high: estimate + z * se }
  const pooled = (a.passed + b.passed) / (a.n + b.n)
  const pooledSe = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n))
  const pValue =
    pooledSe === 0 ? (estimate === 0 ? 1 : 0) : 2 * (1 - normalCdf(Math.abs(estimate) / pooledSe))
  let verdict: WindowVerdict
  if (Math.min(a.n, b.n) < o.minPairs) verdict = 'INSUFFICIENT_EVIDENCE'
  else if (pValue < o.alpha && -estimate > o.maxDrop) verdict = 'NO_GO'
  else if (change.low > -o.maxDrop) verdict = 'GO'
  else verdict = 'INCONCLUSIVE'
  return { metric, baseline, candidate, change, pValue, verdict }
}

type Settings = Pick<CompareOptions, 'alpha' | 'maxDrop' | 'minPairs'>

/** Compares the pass rates of two windows' traces, overall and per evaluator (see the note at the top). */
export function compareWindows(
  baseline: readonly ScoredTrial[],
  candidate: readonly ScoredTrial[],
  options: Settings = {},
): WindowComparison {
  const parsed = CompareOptions.parse({ ...options })
  const settings = { alpha: parsed.alpha, maxDrop: parsed.maxDrop, minPairs: parsed.minPairs }
  const a = collect(baseline)
  const b = collect(candidate)
  const names = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) =>
    x === 'pass' ? -1 : y === 'pass' ? 1 : x < y ? -1 : x > y ? 1 : 0,
  )
  const metrics = names.map((m) => metricOf(m, a.get(m), b.get(m), settings))
  const verdicts = new Set(metrics.map((m) => m.verdict))
  const verdict: WindowVerdict = verdicts.has('NO_GO')
    ? 'NO_GO'
    : verdicts.size === 1 && verdicts.has('GO')
      ? 'GO'
      : verdicts.has('INCONCLUSIVE')
        ? 'INCONCLUSIVE'
        : 'INSUFFICIENT_EVIDENCE'
  return { kind: 'windows', ...settings, metrics, verdict }
}
