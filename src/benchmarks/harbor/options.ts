import * as z from 'zod'
import { parseAdapterInput } from '../../core/index.ts'

export const HARBOR_BENCHMARK_ID = 'harbor'
/** Bump when the adapter's grading changes meaning (the reward rule, what the tests see), so old baselines are not compared blindly. */
export const HARBOR_ADAPTER_VERSION = '1'
/** What grade() may take in all unless `grade_timeout_seconds` says otherwise: the engine's default. */
export const DEFAULT_HARBOR_GRADE_TIMEOUT_SECONDS = 600

/** The benchmark's options, snake_case as a RunConfig writes them. */
export const HarborOptions = z.strictObject({
  /** A task folder, or a folder of task folders (relative paths resolve against the current directory). */
  path: z.string().min(1),
  /** The benchmark id in records and reports; default `harbor`. Use one per dataset (`terminal-bench-core`…). */
  id: z
    .string()
    .regex(/^[A-Za-z0-9][\w.:-]*$/, 'letters, digits and . _ : - only')
    .default(HARBOR_BENCHMARK_ID),
  /** The dataset's version, for baselines; default HARBOR_ADAPTER_VERSION. */
  version: z.string().min(1).default(HARBOR_ADAPTER_VERSION),
  /** Only these task ids (folder names); an id that is not in the dataset is an error. */
  ids: z.array(z.string().min(1)).min(1).optional(),
  /** At most this many tasks, the first ones in id order (after `ids`). */
  limit: z.number().int().positive().optional(),
  /**
   * How long grading may take in all, in seconds (copying the tests, running them, reading the reward); a task's
   * own `[verifier] timeout_sec` is bounded by it. Default 600.
   */
  grade_timeout_seconds: z.number().positive().optional(),
})
export type HarborOptions = z.input<typeof HarborOptions>
export type ResolvedHarborOptions = z.output<typeof HarborOptions>

export function parseHarborOptions(options: unknown): ResolvedHarborOptions {
  return parseAdapterInput(
    HarborOptions,
    options,
    'benchmark "harbor"',
    'Options: path (required), id, version, ids, limit, grade_timeout_seconds.',
  )
}
