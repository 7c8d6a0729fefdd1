import type { JudgeVerdict } from './verdict.ts'

/**
 * How k verdicts become one: `majority` of `passed` (a tie fails: half the judges unconvinced is not a pass),
 * `mean` score at or above the threshold, or `all` must pass.
 */
export const JUDGE_RULES = ['majority', 'mean', 'all'] as const
export type JudgeRule = (typeof JUDGE_RULES)[number]

export interface Aggregate {
  /** Mean of the scores, whatever the rule. */
  score: number
  passed: boolean
  /** Share of the verdicts that agree with `passed`. */
  confidence: number
  /** Verdicts that pass by the rule's own measure (for `mean`: score ≥ threshold). */
  passes: number
  k: number
}

/** Whether one verdict counts as a pass under `rule`. */
export function verdictPasses(
  verdict: Pick<JudgeVerdict, 'score' | 'passed'>,
  rule: JudgeRule,
  threshold: number,
): boolean {
  return rule === 'mean' ? atLeast(verdict.score, threshold) : verdict.passed
}

// A mean like (0.3 + 0.3 + 0.3 + 0.1) / 4 lands a hair under 0.25 in floating point; it must still meet 0.25.
function atLeast(score: number, threshold: number): boolean {
  return score + 1e-9 >= threshold
}

export function aggregateVerdicts(
  verdicts: readonly Pick<JudgeVerdict, 'score' | 'passed'>[],
  rule: JudgeRule,
  threshold: number,
): Aggregate {
  const k = verdicts.length
  // No verdict is no evidence: it never passes.
  if (k === 0) return { score: 0, passed: false, confidence: 0, passes: 0, k }
  const score = verdicts.reduce((sum, v) => sum + v.score, 0) / k
  const votes = verdicts.map((v) => verdictPasses(v, rule, threshold))
  const passes = votes.filter(Boolean).length
  const passed =
    rule === 'majority' ? passes * 2 > k : rule === 'all' ? passes === k : atLeast(score, threshold)
  const confidence = votes.filter((v) => v === passed).length / k
  return { score, passed, confidence, passes, k }
}
