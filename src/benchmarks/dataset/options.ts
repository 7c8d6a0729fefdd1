import * as z from 'zod'
import { AgentEvalOpsError, docPath } from '../../core/index.ts'
import { GraderSpec } from './grader.ts'
import { describeIssue, orderIssues } from './issues.ts'

const text = z.string().min(1)

/**
 * The options of the `dataset` benchmark, with the keys a YAML RunConfig's `benchmark.options` uses. The selection
 * options apply in this order: `ids` and `category` filter, `shuffle_seed` shuffles, `limit` keeps the first n.
 */
export const DatasetOptions = z.strictObject({
  /** The JSONL or YAML file of tasks. */
  path: text,
  /** Benchmark id (the `describe` name, the grade score's `<id>-grade`); default: the file's name without extension. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9@][\w@./:-]*$/, 'an id starts with a letter or digit and has no spaces')
    .optional(),
  /** Bump it when the tasks or their grading change meaning. */
  version: z
    .union([text, z.number()])
    .transform((v) => String(v))
    .default('1'),
  /** Keep only these tasks (in file order). */
  ids: z.array(text).min(1).optional(),
  /** Keep only tasks whose metadata.category is this, or one of these. */
  category: z.union([text, z.array(text).min(1)]).optional(),
  /** Keep at most this many tasks, after the filters and the shuffle. */
  limit: z.number().int().positive().optional(),
  /** Shuffle the tasks with this seed (deterministically) before `limit`. */
  shuffle_seed: z.number().int().refine(Number.isSafeInteger, 'must be a safe integer').optional(),
  /**
   * The grader of tasks that do not name their own; without it, such a task is graded as its `expected` says
   * (impliedGrader), and `{ type: 'none' }` opts them all out.
   */
  grader: GraderSpec.optional(),
  /** How long grading one trial may take (default: the engine's). */
  grade_timeout_seconds: z.number().positive().optional(),
})
export type DatasetOptions = z.output<typeof DatasetOptions>
export type DatasetOptionsInput = z.input<typeof DatasetOptions>

const OPTION_NAMES = Object.keys(DatasetOptions.shape).join(', ')

/** Validates the options; CONFIG_INVALID names the option at fault. */
export function parseDatasetOptions(options: unknown): DatasetOptions {
  const parsed = DatasetOptions.safeParse(options ?? {})
  if (parsed.success) return parsed.data
  const problems = orderIssues(parsed.error.issues)
    .slice(0, 3)
    .map((issue) => describeIssue(issue, options, 'option'))
  throw new AgentEvalOpsError('CONFIG_INVALID', `benchmark "dataset" options: ${problems.join('; ')}.`, {
    hint: `Its options are: ${OPTION_NAMES} (see ${docPath('benchmarks/dataset.md')}).`,
  })
}
