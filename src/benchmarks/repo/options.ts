import * as z from 'zod'
import { parseAdapterInput } from '../../core/index.ts'

/** The version the benchmark reports when the options name none. */
export const REPO_BENCHMARK_VERSION = '1'
export const DEFAULT_TEST_TIMEOUT_SECONDS = 300

/** The `repo` benchmark's options, snake_case as a RunConfig writes them. */
export const RepoOptions = z.strictObject({
  /** The instances file: JSON Lines, or a JSON array. Relative paths resolve against the working directory. */
  path: z.string().min(1),
  /** The benchmark id in records and reports. */
  id: z.string().min(1).default('repo'),
  /** The dataset's version (e.g. `lite-2024-06`); default REPO_BENCHMARK_VERSION. */
  version: z.string().min(1).optional(),
  /** How long one run of an instance's test command may take; a run that overruns scores 0 (`tests_timed_out`). */
  test_timeout_seconds: z.number().positive().default(DEFAULT_TEST_TIMEOUT_SECONDS),
  /** Only these instance ids (each must be in the file). */
  ids: z.array(z.string().min(1)).min(1).optional(),
  /** At most this many instances (after `ids`), in file order. */
  limit: z.number().int().positive().optional(),
  /** Where the worktrees go: `<scratch_dir>/agentevalops-repo/<pid>/…`; default the OS temp folder. */
  scratch_dir: z.string().min(1).optional(),
})
export type RepoOptions = z.output<typeof RepoOptions>
export type RepoOptionsInput = z.input<typeof RepoOptions>

export function parseRepoOptions(options: RepoOptionsInput): RepoOptions {
  return parseAdapterInput(
    RepoOptions,
    options,
    'benchmark "repo"',
    'Options: path (the instances file), id, version, test_timeout_seconds, ids, limit, scratch_dir.',
  )
}
