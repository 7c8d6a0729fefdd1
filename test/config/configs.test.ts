import { readdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { toyBenchmark } from '../../src/benchmarks/index.ts'
import { loadRunConfig, type LoadedConfig } from '../../src/config/index.ts'
import { fakeCatalog } from './fake-catalog.ts'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'

const CONFIGS = fileURLToPath(new URL('../../configs/', import.meta.url))
const NAMES = ['toy_failure', 'toy_mixed', 'toy_policy_violation', 'toy_smoke', 'toy_trace_limit']

async function load(name: string): Promise<LoadedConfig> {
  return loadRunConfig(`${CONFIGS}${name}.yaml`, fakeCatalog())
}

/** The toy tasks a config selects, the way a run will: its filter through listTasks, then its task ids. */
async function selected(loaded: LoadedConfig): Promise<string[]> {
  const { tasks, filter } = loaded.config.benchmark
  const listed = await toyBenchmark().listTasks(filter)
  return listed.filter((t) => !tasks || tasks.includes(t.id)).map((t) => t.id)
}

async function outcomes(loaded: LoadedConfig): Promise<Record<string, unknown>> {
  const ids = new Set(await selected(loaded))
  const all = await toyBenchmark().listTasks()
  return Object.fromEntries(all.filter((t) => ids.has(t.id)).map((t) => [t.id, t.metadata.expectedOutcome]))
}

describe('configs/', () => {
  it('holds the five toy configs', () => {
    expect(
      readdirSync(CONFIGS)
        .filter((f) => f.startsWith('toy_'))
        .sort(),
    ).toEqual(NAMES.map((n) => `${n}.yaml`))
  })

  it.each(NAMES)('%s loads cleanly against the built-in ids and says what it demonstrates', async (name) => {
    const loaded = await load(name)
    expect(loaded.config.name).toBe(name.replace(/_/g, '-'))
    expect(loaded.config.benchmark.id).toBe('toy')
    expect(loaded.config.agent.runner).toBe('mock-scripted')
    expect(loaded.raw.startsWith(`# ${name} — `)).toBe(true)
    // Every task id it names is a toy task.
    const known = new Set((await toyBenchmark().listTasks()).map((t) => t.id))
    for (const id of loaded.config.benchmark.tasks ?? []) expect(known, id).toContain(id)
    expect(await selected(loaded)).not.toEqual([])
  })

  it('toy_smoke selects exactly the tasks that pass, gated on each trial', async () => {
    const loaded = await load('toy_smoke')
    expect(Object.values(await outcomes(loaded))).toEqual(Array(7).fill('passed'))
    expect(loaded.config.gate).toBe('each')
  })

  it('toy_failure mixes a pass with a wrong answer and an agent error, gated on each trial', async () => {
    const loaded = await load('toy_failure')
    expect(await outcomes(loaded)).toEqual({
      'arith-add': 'passed',
      'wrong-answer': 'failed',
      'agent-error': 'agent_error',
    })
    expect(loaded.config.gate).toBe('each')
  })

  it('toy_policy_violation denies the tool the forbidden-tool task calls', async () => {
    const loaded = await load('toy_policy_violation')
    expect(await outcomes(loaded)).toMatchObject({ 'forbidden-tool': 'policy_violation' })
    expect(loaded.config.policy).toContainEqual({ id: 'tool-access', options: { deny: ['delete_database'] } })
  })

  it('toy_trace_limit runs the four limit tasks under the tight toy limits', async () => {
    const loaded = await load('toy_trace_limit')
    expect(await selected(loaded)).toEqual(['cost-ceiling', 'token-limit', 'time-limit', 'turn-limit'])
    expect(loaded.config.agent.resourceLimits).toEqual({
      maxTokens: 5000,
      maxTurns: 12,
      maxWallSeconds: 3,
      maxCostUsd: 0.5,
    })
  })

  it('toy_mixed runs every task three times under an aggregate gate', async () => {
    const loaded = await load('toy_mixed')
    expect(await selected(loaded)).toHaveLength((await toyBenchmark().listTasks()).length)
    expect(loaded.config.trials).toBe(3)
    expect(loaded.config.gate).toEqual({ minPassRate: 0.3 })
  })

  it('humaneval_oracle builds the real benchmark from the shared dataset, relative to the config file', async () => {
    const loaded = await load('humaneval_oracle')
    const { benchmark, agent } = loaded.config
    const registry = builtinRegistry()
    const context = { baseDir: dirname(loaded.file) }
    const adapter = registry.create('benchmark', benchmark.id, benchmark.options, context)
    expect(await adapter.listTasks()).toHaveLength(164)
    expect(registry.create('runner', agent.runner, agent.options, context).runnerInfo().name).toBe(
      'humaneval-oracle',
    )
    expect(loaded.config.gate).toBe('each')
  })
})
