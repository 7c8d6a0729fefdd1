// The config-driven eval file: in config mode (AGENTEVALOPS_CONFIG, or `agentevalops run`) the plugin makes this the
// evals project's only test file. At collection it reads the configs the plugin provided, builds their adapters
// from the registry (built-ins and the root's adapter packages, discovered again here in the worker), lists the
// tasks each config selects, and registers each config's benchmark with evalBenchmark() (which keeps the tasks of
// the run's shard), inside a describe named after the config.
import { basename, dirname, join } from 'node:path'
import { beforeEach, describe, inject } from 'vitest'
import {
  discoverPlugins,
  expandEnvRefs,
  type AdapterKind,
  type AdapterOf,
  type RunConfig,
} from '../src/config/index.ts'
import {
  AgentEvalOpsError,
  assertUniqueTaskIds,
  type BenchmarkAdapter,
  type JsonObject,
  type TaskSpec,
} from '../src/core/index.ts'
import { builtinRegistry } from './builtin-adapters.ts'
import { evalBenchmark } from './eval-benchmark.ts'
import { CONFIGS_PROVIDE_KEY, RUN_CLI_ENV, type ProvidedConfigs } from './vite-plugin.ts'

const provided = inject(CONFIGS_PROVIDE_KEY) as ProvidedConfigs | undefined
if (!provided || !Array.isArray(provided.configs)) {
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    'config-eval runs only in config mode, and no configs were provided.',
    {
      hint: 'Set AGENTEVALOPS_CONFIG (or use agentevalops run <config.yaml>) in a project with the agentEvalOps() plugin.',
    },
  )
}

const registry = builtinRegistry()
await discoverPlugins(provided.root, registry)

// Cancelling the run (Ctrl+C under agentevalops run) must abort every trial in flight. Vitest 4.1 aborts the signal
// of running tests only, and its list of them loses every test started after the first one to finish
// (`tests.splice(tests.indexOf(test))` without a count), so with concurrent trials most never see the abort and run
// to their end. Each case's signal is therefore joined with one that the worker's own cancel listener aborts, and a
// case that starts after the cancel is skipped.
const cancelled = new AbortController()
onWorkerCancel(() =>
  cancelled.abort(new AgentEvalOpsError('RUN_ABORTED', 'The test run was aborted by the user.')),
)
leaveSignalsToTheCli()
beforeEach((context) => {
  if (cancelled.signal.aborted) context.skip('the run was cancelled')
  ;(context as { signal: AbortSignal }).signal = AbortSignal.any([context.signal, cancelled.signal])
})

// Every config's adapters and tasks, before anything registers.
const plans: Plan[] = []
for (const { config, file } of provided.configs) plans.push(await plan(config, file))

// Benchmarks that more than one config of this run uses get the config name in their id, so their trials (and trace
// folders) stay apart in the bundle.
const benchmarkUse = new Map<string, number>()
for (const { benchmark } of plans) benchmarkUse.set(benchmark.id, (benchmarkUse.get(benchmark.id) ?? 0) + 1)

for (const p of plans) {
  const tasks = p.tasks
  const id = (benchmarkUse.get(p.benchmark.id) ?? 0) > 1 ? `${p.benchmark.id}@${p.config.name}` : undefined
  const benchmark = delegate(p.benchmark, {
    listTasks: () => tasks,
    ...(id === undefined ? {} : { id, info: async () => ({ ...(await p.benchmark.info()), id }) }),
  })
  describe(p.config.name, () => {
    evalBenchmark({
      benchmark,
      runner: p.create('runner', p.config.agent.runner, p.config.agent.options, 'agent.options'),
      evaluators: p.config.evaluators.map((e, i) =>
        p.create('evaluator', e.id, e.options, `evaluators[${i}].options`),
      ),
      policy: p.config.policy.map((c, i) => p.create('policy', c.id, c.options, `policy[${i}].options`)),
      limits: p.config.agent.resourceLimits,
      trials: provided.trials ?? p.config.trials,
      gate: p.config.gate,
      // Settings only: the baseline itself is the run's (--baseline), so every config of it compares alike.
      ...(p.config.compare === undefined ? {} : { compare: p.config.compare }),
      // Beside the config, as recordings of an eval file are beside it.
      recordingsDir: join(dirname(p.file), '__recordings__', basename(p.file)),
    })
  })
}

interface Plan {
  config: RunConfig
  file: string
  benchmark: BenchmarkAdapter
  tasks: TaskSpec[]
  /** Builds an adapter of the config, its options' env references expanded. */
  create: <K extends AdapterKind>(kind: K, id: string, options: JsonObject, where: string) => AdapterOf<K>
}

async function plan(config: RunConfig, file: string): Promise<Plan> {
  // Env references are expanded right before each factory sees its options, never earlier: nothing else holds the
  // values.
  const create = <K extends AdapterKind>(kind: K, id: string, options: JsonObject, where: string) =>
    registry.create(kind, id, expandEnvRefs(options, process.env, `${file} ${where}`) as JsonObject, {
      baseDir: dirname(file),
    })
  const benchmark = create('benchmark', config.benchmark.id, config.benchmark.options, 'benchmark.options')
  const tasks = await listSelected(benchmark, config, file)
  if (tasks.length === 0) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${file} benchmark: it selects no task of benchmark ${JSON.stringify(benchmark.id)}.`,
      { hint: 'Check benchmark.filter: it must match the metadata of at least one task.' },
    )
  }
  return { config, file, benchmark, tasks, create }
}

/** The tasks `filter` and `tasks` select, in the order `tasks` lists them. */
async function listSelected(adapter: BenchmarkAdapter, config: RunConfig, file: string): Promise<TaskSpec[]> {
  const { filter, tasks: ids } = config.benchmark
  const tasks = await adapter.listTasks(filter)
  // The whole list, before `tasks` picks from it: which of two tasks of one id a run means is anybody's guess.
  assertUniqueTaskIds(tasks, adapter.id, `benchmark ${JSON.stringify(adapter.id)} of ${file}`)
  if (ids === undefined) return tasks
  const byId = new Map(tasks.map((t) => [t.id, t]))
  const missing = ids.filter((id) => !byId.has(id))
  if (missing.length > 0) {
    const all = filter === undefined ? tasks : await adapter.listTasks()
    const known = new Set(all.map((t) => t.id))
    const quoted = (list: string[]) => list.map((id) => JSON.stringify(id)).join(', ')
    const unknown = missing.filter((id) => !known.has(id))
    const filtered = missing.filter((id) => known.has(id))
    const parts: string[] = []
    if (unknown.length > 0)
      parts.push(`benchmark ${JSON.stringify(adapter.id)} has no task ${quoted(unknown)}`)
    if (filtered.length > 0) parts.push(`the filter leaves out ${quoted(filtered)}`)
    throw new AgentEvalOpsError('CONFIG_INVALID', `${file} benchmark.tasks: ${parts.join('; ')}.`, {
      hint: `Its tasks are: ${[...known].slice(0, 30).join(', ')}${known.size > 30 ? ', …' : ''}.`,
    })
  }
  return ids.map((id) => byId.get(id)!)
}

/** An adapter that forwards to `adapter` (methods bound, so class-based adapters keep their `this`). */
function delegate(adapter: BenchmarkAdapter, overrides: Partial<BenchmarkAdapter>): BenchmarkAdapter {
  return {
    id: adapter.id,
    version: adapter.version,
    listTasks: (filter) => adapter.listTasks(filter),
    info: () => adapter.info(),
    ...(adapter.prepare ? { prepare: adapter.prepare.bind(adapter) } : {}),
    ...(adapter.grade ? { grade: adapter.grade.bind(adapter) } : {}),
    ...(adapter.gradeTimeoutSeconds === undefined
      ? {}
      : { gradeTimeoutSeconds: adapter.gradeTimeoutSeconds }),
    ...(adapter.taskLimits ? { taskLimits: adapter.taskLimits.bind(adapter) } : {}),
    ...(adapter.teardown ? { teardown: adapter.teardown.bind(adapter) } : {}),
    ...overrides,
  }
}

/** Vitest's per-worker cancel hook (internal: absent in other runtimes, where Vitest's own abort has to do). */
function onWorkerCancel(listener: () => void): void {
  const state = (globalThis as { __vitest_worker__?: { onCancel?: (fn: () => void) => void } })
    .__vitest_worker__
  if (typeof state?.onCancel === 'function') state.onCancel(listener)
}

/**
 * Under `agentevalops run`, a Ctrl+C in the terminal reaches the whole process group, workers included. The CLI
 * turns it into a cancel of the run; a worker killed by it would lose the results of trials that had finished but
 * not been reported yet (Vitest batches them), and print a crash. So the worker leaves SIGINT/SIGTERM to its parent
 * while connected to it; orphaned, it exits as usual.
 */
function leaveSignalsToTheCli(): void {
  const flag = Symbol.for('agentevalops.signals-left-to-cli')
  const global = globalThis as { [flag]?: boolean }
  if (process.env[RUN_CLI_ENV] !== '1' || typeof process.send !== 'function' || global[flag]) return
  global[flag] = true
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!process.connected) process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
}
