import * as z from 'zod'
import type { ComparisonSettings } from '../../core/index.ts'
import { parseSettings } from '../parse-settings.ts'

export const CompareOptions = z.strictObject({
  /** Significance level of the paired tests, and 1 − the confidence of the interval of the change. */
  alpha: z.number().gt(0).lt(1).default(0.05),
  /** The largest drop of a pass rate or mean score (0..1) that still counts as no regression. */
  maxDrop: z.number().min(0).max(1).default(0.05),
  /** Fewer paired tasks than this and the verdict is INSUFFICIENT_EVIDENCE. */
  minPairs: z.number().int().positive().default(10),
  /** Compare although the benchmarks or their dataset checksums differ. */
  force: z.boolean().default(false),
  /** NO_GO on any broken task (every baseline trial passed, no trial passes now), whatever the p-value. */
  failOnBroken: z.boolean().default(false),
  /** Seed of the Monte Carlo permutation test (used only past 16 nonzero differences). */
  seed: z.number().int().default(20_261_130),
})
export type CompareOptions = z.input<typeof CompareOptions>

export function resolveCompareSettings(options: CompareOptions = {}): ComparisonSettings {
  const { force, ...rest } = parseSettings(
    CompareOptions,
    options,
    'comparison settings',
    'alpha and maxDrop are fractions (e.g. 0.05); minPairs is a whole number ≥ 1.',
  )
  return { ...rest, forced: force }
}
