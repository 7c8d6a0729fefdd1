import { cp, mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AgentRunner, BenchmarkAdapter, TaskSpec } from '../../../src/core/index.ts'
import { folderArtifacts, runTrial, type TrialRun } from '../../../src/engine/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'

/** The fixture dataset: hello-file, answer-reward, upper-case-seed. */
export const FIXTURE_TASKS = fileURLToPath(new URL('./fixtures/tasks', import.meta.url))

/** A valid task.toml with a given verifier timeout. */
export function taskToml(verifierSeconds = 30): string {
  return `version = "1.0"\n\n[metadata]\ndifficulty = "easy"\n\n[verifier]\ntimeout_sec = ${verifierSeconds}\n`
}

/** Writes a task folder `root/id` with the given files (paths relative to the task folder). */
export async function writeTask(root: string, id: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, id)
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  }
  return dir
}

/** A copy of the fixture dataset in `root`, for tests that change it. */
export async function copyFixtures(root: string): Promise<string> {
  const to = join(root, 'tasks')
  await cp(FIXTURE_TASKS, to, { recursive: true })
  return to
}

export async function taskById(benchmark: BenchmarkAdapter, id: string): Promise<TaskSpec> {
  const task = (await benchmark.listTasks()).find((t) => t.id === id)
  if (!task) throw new Error(`no task ${id}`)
  return task
}

/** One trial through the real engine, with the benchmark's prepare/grade/teardown bound as the plugin binds them. */
export async function harborTrial(
  benchmark: BenchmarkAdapter,
  task: TaskSpec,
  runner: AgentRunner,
  artifactsRoot: string,
  extra: { gradeTimeoutSeconds?: number; onWarning?: (msg: string) => void } = {},
): Promise<TrialRun> {
  return runTrial({
    runId: 'harbor-test',
    benchmark: await benchmark.info(),
    task,
    trial: 0,
    runner,
    prepare: (t) => benchmark.prepare!(t),
    grade: (view, ctx) => benchmark.grade!(view, ctx),
    gradeTimeoutSeconds: extra.gradeTimeoutSeconds ?? benchmark.gradeTimeoutSeconds,
    teardown: (t, env) => benchmark.teardown!(t, env),
    artifacts: folderArtifacts(join(artifactsRoot, task.id)),
    traceStore: new MemoryTraceStore(),
    limits: { maxWallSeconds: 60 },
    taskLimits: benchmark.taskLimits?.(task),
    onWarning: extra.onWarning,
  })
}
