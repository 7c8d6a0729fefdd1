import { basename, extname, isAbsolute, relative, resolve } from 'node:path'
import {
  AgentEvalOpsError,
  matchesTaskFilter,
  type BenchmarkAdapter,
  type BenchmarkInfo,
  type GradeContext,
  type GradeOutput,
  type JsonObject,
  type TaskSpec,
  type TrialView,
} from '../../core/index.ts'
import { gradeTrial } from './grader.ts'
import { loadDataset, type DatasetSource, type LoadedDataset } from './load.ts'
import { parseDatasetOptions, type DatasetOptionsInput } from './options.ts'
import { selectTasks } from './select.ts'

export interface DatasetContext {
  /**
   * What a relative `path` is resolved against: a RunConfig's loader passes the config file's folder. Default:
   * the current directory.
   */
  baseDir?: string
}

export interface DatasetBenchmark extends BenchmarkAdapter {
  /** The dataset file, as read (absolute). */
  readonly file: string
  /**
   * A property (a getter), not a method: undefined when no task has a grader. Bound already, so
   * `adapter.grade` may be handed to the engine as it is.
   */
  readonly grade: ((view: TrialView, ctx: GradeContext) => GradeOutput) | undefined
}

/** A path for messages: relative to the current directory when the file is inside it, else absolute. */
function shortPath(cwd: string, absolute: string): string {
  const rel = relative(cwd, absolute)
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? absolute : rel
}

/** A file's name without its extension: `data/arith.jsonl` → `arith`. */
function stemOf(path: string): string {
  const name = basename(path)
  return basename(name, extname(name)) || name
}

/**
 * A benchmark whose tasks are the lines of a JSONL file or the items of a YAML list (see docs/benchmarks/dataset.md).
 * Options are validated now (CONFIG_INVALID); the file is read on first need, once, and kept.
 *
 * Grading: each task is graded by its own `grader`, else the options' `grader`, else as its `expected` says (a
 * string exactly, see impliedGrader), else — no `expected`, or `grader: { type: none }` — not at all. A graded
 * task carries its grader's match as `task.match`, which matchesExpected() follows. When no task is graded, the
 * adapter has no grade() (its `grade` is undefined), so no `<id>-grade` score appears and the evaluators alone
 * judge; otherwise grade() scores every trial, and an ungraded task passes it with "this task has no grader" (it
 * is not the grader's to fail). Because whether any task has a grader is in the file,
 * `grade` is a getter that reads the file when the options name no default grader; should the file be unreadable,
 * it answers undefined and listTasks()/info() report the problem.
 */
export function datasetBenchmark(
  options: DatasetOptionsInput,
  context: DatasetContext = {},
): DatasetBenchmark {
  const opts = parseDatasetOptions(options)
  const cwd = process.cwd()
  const absolute = resolve(context.baseDir ?? cwd, opts.path)
  const source: DatasetSource = {
    path: opts.path,
    absolute,
    display: isAbsolute(opts.path) || context.baseDir === undefined ? opts.path : shortPath(cwd, absolute),
    base: context.baseDir === undefined ? `the current directory (${cwd})` : context.baseDir,
  }
  const id = opts.id ?? stemOf(opts.path)
  const { version } = opts
  const selection = {
    ids: opts.ids,
    category: opts.category,
    limit: opts.limit,
    shuffleSeed: opts.shuffle_seed,
  }

  // A failed read is not kept: the next call tries again (and throws again, or finds the file fixed).
  let dataset: LoadedDataset | undefined
  const load = (): LoadedDataset => (dataset ??= loadDataset(source, id, opts.grader))
  let selected: TaskSpec[] | undefined
  const select = (): TaskSpec[] =>
    (selected ??= selectTasks(
      load().entries.map((e) => e.task),
      selection,
      source.display,
    ))

  const hasGrader = (): boolean => {
    if (opts.grader !== undefined && opts.grader.type !== 'none') return true
    try {
      return load().entries.some((e) => e.grader.type !== 'none')
    } catch {
      return false
    }
  }

  const grade = (view: TrialView, _ctx: GradeContext): GradeOutput => {
    const entry = load().byId.get(view.task.id)
    if (entry === undefined) {
      // Throwing means "could not grade": the engine makes the trial an infra failure, not a wrong answer.
      throw new AgentEvalOpsError(
        'DATASET_INVALID',
        `${source.display}: benchmark ${JSON.stringify(id)} has no task ${JSON.stringify(view.task.id)} to grade.`,
        { hint: 'Grade a task with the benchmark that listed it.' },
      )
    }
    return gradeTrial(entry.grader, view)
  }

  return {
    id,
    version,
    file: absolute,
    ...(opts.grade_timeout_seconds === undefined ? {} : { gradeTimeoutSeconds: opts.grade_timeout_seconds }),
    async listTasks(filter?: JsonObject) {
      const tasks = select()
      return filter ? tasks.filter((task) => matchesTaskFilter(task, filter)) : tasks.slice()
    },
    async info(): Promise<BenchmarkInfo> {
      const { checksum } = load()
      // Exactly the options that chose the tasks, so two runs compare only over the same selection.
      const recorded: JsonObject = { path: opts.path }
      if (opts.ids !== undefined) recorded.ids = [...opts.ids]
      if (opts.category !== undefined)
        recorded.category = typeof opts.category === 'string' ? opts.category : [...opts.category]
      if (opts.limit !== undefined) recorded.limit = opts.limit
      if (opts.shuffle_seed !== undefined) recorded.shuffleSeed = opts.shuffle_seed
      recorded.taskCount = select().length
      return { id, version, datasetChecksum: checksum, selection: recorded }
    },
    get grade() {
      return hasGrader() ? grade : undefined
    },
  }
}
