import {
  AgentEvalOpsError,
  canonicalJson,
  matchesTaskFilter,
  sha256,
  type BenchmarkAdapter,
  type BenchmarkInfo,
  type EnvHandle,
  type JsonObject,
  type TaskSpec,
} from '../../core/index.ts'
import { gradeTrial } from './grade.ts'
import {
  DEFAULT_HARBOR_GRADE_TIMEOUT_SECONDS,
  HARBOR_ADAPTER_VERSION,
  parseHarborOptions,
  type HarborOptions,
  type ResolvedHarborOptions,
} from './options.ts'
import { agentTimeoutOf, findTaskFolders, loadTaskFolder, type HarborTaskSource } from './task-folder.ts'
import { prepareWorkspace, removeWorkspace } from './workspace.ts'

interface Dataset {
  /** Every task of the folder, in id order: the dataset checksum is over these. */
  all: HarborTaskSource[]
  /** The ones `ids` and `limit` select. */
  selected: HarborTaskSource[]
  byId: Map<string, HarborTaskSource>
}

async function loadDataset(options: ResolvedHarborOptions): Promise<Dataset> {
  const all: HarborTaskSource[] = []
  // One at a time: a dataset of a few hundred folders loads in well under a second, and errors come in order.
  for (const dir of await findTaskFolders(options.path)) all.push(await loadTaskFolder(dir, options.id))
  const byId = new Map(all.map((t) => [t.id, t]))
  let selected = all
  if (options.ids) {
    const unknown = options.ids.filter((id) => !byId.has(id))
    if (unknown.length > 0)
      throw new AgentEvalOpsError(
        'DATASET_INVALID',
        `harbor: no task folder named ${unknown.map((id) => JSON.stringify(id)).join(', ')}`,
        {
          location: { file: options.path },
          hint: `Task ids are folder names; known: ${[...byId.keys()].slice(0, 20).join(', ')}${byId.size > 20 ? ', …' : ''}.`,
        },
      )
    const wanted = new Set(options.ids)
    selected = all.filter((t) => wanted.has(t.id))
  }
  if (options.limit !== undefined) selected = selected.slice(0, options.limit)
  return { all, selected, byId }
}

/**
 * Terminal-Bench / Harbor task folders as a benchmark (docs/benchmarks/harbor.md). Each folder is one task: its
 * instruction.md is the prompt, prepare() makes a temp workspace seeded from environment/ (tests/ and solution/
 * stay out of it), grade() runs tests/test.sh with bash in that workspace and turns its exit code and reward into
 * the `<id>-grade` score, teardown() removes it all. Tasks run as local processes, not in containers: the
 * Dockerfile is not built, and the workspace is a temp folder, not a security boundary.
 */
export function harborBenchmark(options: HarborOptions): BenchmarkAdapter {
  const resolved = parseHarborOptions(options)
  let loading: Promise<Dataset> | undefined
  const dataset = (): Promise<Dataset> => {
    if (!loading) {
      loading = loadDataset(resolved)
      // A failed load is reported to its caller, not kept: the next call reads the folder again.
      loading.catch(() => (loading = undefined))
    }
    return loading
  }
  const sourceOf = async (task: TaskSpec): Promise<HarborTaskSource> => {
    const source = (await dataset()).byId.get(task.id)
    if (source) return source
    throw new AgentEvalOpsError(
      'TASK_INVALID',
      `harbor: task ${JSON.stringify(task.id)} is not in ${resolved.path}`,
      {
        hint: "Use the tasks this benchmark's listTasks() returned.",
      },
    )
  }

  return {
    id: resolved.id,
    version: resolved.version,
    gradeTimeoutSeconds: resolved.grade_timeout_seconds ?? DEFAULT_HARBOR_GRADE_TIMEOUT_SECONDS,
    taskLimits(task) {
      const seconds = agentTimeoutOf(task)
      return seconds === null ? undefined : { maxWallSeconds: seconds }
    },
    async listTasks(filter?: JsonObject) {
      const tasks = (await dataset()).selected.map((t) => t.spec)
      return filter ? tasks.filter((task) => matchesTaskFilter(task, filter)) : tasks
    },
    async info(): Promise<BenchmarkInfo> {
      const { all, selected } = await dataset()
      // Over the whole folder and the adapter's grading rule: a changed test, or a changed rule, is another dataset.
      const datasetChecksum = sha256(
        canonicalJson({ adapter: HARBOR_ADAPTER_VERSION, tasks: all.map((t) => t.spec.checksum) }),
      )
      const info: BenchmarkInfo = { id: resolved.id, version: resolved.version, datasetChecksum }
      if (resolved.ids !== undefined || resolved.limit !== undefined) {
        const selection: JsonObject = { source: resolved.path, count: selected.length }
        if (resolved.ids !== undefined) selection.ids = resolved.ids
        if (resolved.limit !== undefined) selection.limit = resolved.limit
        info.selection = selection
      }
      return info
    },
    async prepare(task: TaskSpec) {
      return prepareWorkspace(await sourceOf(task))
    },
    async grade(view, ctx) {
      return gradeTrial(await sourceOf(view.task), view, ctx)
    },
    async teardown(_task: TaskSpec, env: EnvHandle) {
      await removeWorkspace(env)
    },
  }
}
