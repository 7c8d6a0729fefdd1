import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  canonicalJson,
  matchesTaskFilter,
  sha256,
  type BenchmarkAdapter,
  type EnvHandle,
  type JsonObject,
  type TaskSpec,
} from '../../core/index.ts'
import { toyTasks } from './tasks.ts'

export const TOY_BENCHMARK_ID = 'toy'
/** Bump whenever a task or script changes meaning, so baselines from the old version are not compared blindly. */
export const TOY_BENCHMARK_VERSION = '2'

/** The built-in smoke benchmark: small, fast, and covering every outcome the harness must classify. */
export function toyBenchmark(): BenchmarkAdapter {
  return {
    id: TOY_BENCHMARK_ID,
    version: TOY_BENCHMARK_VERSION,
    listTasks(filter?: JsonObject) {
      const tasks = toyTasks()
      return filter ? tasks.filter((task) => matchesTaskFilter(task, filter)) : tasks
    },
    info() {
      // Over the whole dataset, not a filtered view: the checksum identifies the benchmark, not the selection.
      const datasetChecksum = sha256(canonicalJson(toyTasks().map((task) => task.checksum)))
      return { id: TOY_BENCHMARK_ID, version: TOY_BENCHMARK_VERSION, datasetChecksum }
    },
    // Only tasks that act on files get a workspace: the rest stay free of disk work.
    async prepare(task: TaskSpec) {
      if (task.metadata.workspace !== true) return {}
      return { workdir: await mkdtemp(join(tmpdir(), 'agentevalops-toy-')) }
    },
    async teardown(_task: TaskSpec, env: EnvHandle) {
      if (env.workdir !== undefined) await rm(env.workdir, { recursive: true, force: true })
    },
  }
}
