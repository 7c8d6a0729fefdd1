import { basename } from 'node:path'
import {
  AgentEvalOpsError,
  matchesTaskFilter,
  type BenchmarkAdapter,
  type BenchmarkInfo,
  type JsonObject,
  type TaskSpec,
} from '../../core/index.ts'
import { gradeRepoTrial } from './grade.ts'
import { instanceTask, readInstances, RepoInput, resolveRepoPath } from './instances.ts'
import { parseRepoOptions, REPO_BENCHMARK_VERSION, type RepoOptionsInput } from './options.ts'
import { addWorktree, removeWorktree } from './worktree.ts'

/** Grading is the test run plus git work (add, diff, apply) on top: this much more than the test timeout. */
const GIT_GRADE_MARGIN_SECONDS = 120

interface Loaded {
  file: string
  checksum: string
  /** The selected tasks (ids, limit), in file order. */
  tasks: TaskSpec[]
}

/**
 * SWE-bench-style tasks on local git repositories: each trial gets a detached worktree at the instance's base commit,
 * the agent edits it, and grade() runs the instance's tests after applying its test patch (see docs/benchmarks/repo.md).
 */
export function repoBenchmark(input: RepoOptionsInput): BenchmarkAdapter {
  const options = parseRepoOptions(input)
  const version = options.version ?? REPO_BENCHMARK_VERSION
  let loading: Promise<Loaded> | undefined

  const load = (): Promise<Loaded> => {
    if (!loading) {
      loading = (async () => {
        const { file, checksum, instances } = await readInstances(options.path)
        const all = instances.map((instance) => instanceTask(instance, options.id, file))
        return { file, checksum, tasks: select(all, options.ids, options.limit, file) }
      })()
      // A file fixed after a failed read is read again.
      loading.catch(() => (loading = undefined))
    }
    return loading
  }

  return {
    id: options.id,
    version,
    gradeTimeoutSeconds: options.test_timeout_seconds + GIT_GRADE_MARGIN_SECONDS,
    async listTasks(filter?: JsonObject) {
      const { tasks } = await load()
      const chosen = filter ? tasks.filter((task) => matchesTaskFilter(task, filter)) : tasks
      // Copies: a caller that edits a task must not edit ours.
      return structuredClone(chosen)
    },
    async info(): Promise<BenchmarkInfo> {
      const { checksum, tasks } = await load()
      const selection: JsonObject = {
        source: basename(options.path),
        ...(options.ids ? { ids: options.ids } : {}),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
        count: tasks.length,
      }
      return { id: options.id, version, datasetChecksum: checksum, selection }
    },
    async prepare(task: TaskSpec) {
      const { file } = await load()
      const where = RepoInput.safeParse(task.input)
      if (!where.success) {
        throw new AgentEvalOpsError('DATASET_INVALID', `task ${JSON.stringify(task.id)} is not a repo task`, {
          hint: "Prepare tasks with the benchmark that listed them (the repo benchmark's listTasks).",
        })
      }
      return addWorktree(
        resolveRepoPath(where.data.repo, file),
        where.data.base_commit,
        task.id,
        options.scratch_dir,
      )
    },
    grade(view, ctx) {
      return gradeRepoTrial(view, ctx, { testTimeoutSeconds: options.test_timeout_seconds })
    },
    async teardown(_task, env) {
      await removeWorktree(env, options.scratch_dir)
    },
  }
}

function select(
  all: TaskSpec[],
  ids: readonly string[] | undefined,
  limit: number | undefined,
  file: string,
): TaskSpec[] {
  let tasks = all
  if (ids) {
    const known = new Set(all.map((t) => t.id))
    const unknown = ids.filter((id) => !known.has(id))
    if (unknown.length > 0) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `benchmark option ids names ${unknown.map((id) => JSON.stringify(id)).join(', ')}, not in ${file}`,
        {
          hint: `Its instances are: ${[...known].slice(0, 20).join(', ')}${known.size > 20 ? ', …' : ''}.`,
        },
      )
    }
    const wanted = new Set(ids)
    tasks = tasks.filter((t) => wanted.has(t.id))
  }
  return limit === undefined ? tasks : tasks.slice(0, limit)
}
