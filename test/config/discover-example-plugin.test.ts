// The example adapter package (examples/adapter-plugin), installed for real with npm into a throwaway project, then
// discovered and used: its runner and evaluator run a toy task through the engine.
import { BUILTIN_IDS } from './fake-catalog.ts'
import { execFile } from 'node:child_process'
import { existsSync, lstatSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'
import { toyBenchmark } from '../../src/benchmarks/index.ts'
import { discoverPlugins } from '../../src/config/discover-plugins.ts'
import { AgentEvalOpsError } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'

const EXAMPLE = fileURLToPath(new URL('../../examples/adapter-plugin', import.meta.url))
const NPM_TIMEOUT_MS = 90_000

/** npm's own settings from a parent `npm run` (npm_config_*, …) would steer the child: leave them out. */
function npmEnv(cache: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || /^VITEST/.test(name)) continue
    env[name] = value
  }
  return { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false', NO_COLOR: '1' }
}

function npm(args: string[], cwd: string, cache: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      args,
      { cwd, env: npmEnv(cache), timeout: NPM_TIMEOUT_MS, killSignal: 'SIGKILL', encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`npm ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`))
        else resolve({ stdout, stderr })
      },
    )
  })
}

describe('the example adapter package, installed with npm', () => {
  let base: string
  let project: string

  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'aeo-plugin-example-')))
    project = join(base, 'project')
    await mkdir(project)
    await writeFile(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'plugin-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
    )
    // --offline: a local folder installs as a symlink and needs no registry; the example's `agentevalops`
    // peerDependency is not fetched for a linked folder, so no --legacy-peer-deps is needed.
    await npm(['install', '--no-audit', '--no-fund', '--offline', EXAMPLE], project, join(base, 'npm-cache'))
  }, NPM_TIMEOUT_MS + 10_000)

  afterAll(async () => {
    if (base) await rm(base, { recursive: true, force: true })
  })

  it('is installed as a dependency of the project, linked to the example folder', async () => {
    const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
    }
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['agentevalops-plugin-example'])
    const installed = join(project, 'node_modules', 'agentevalops-plugin-example')
    expect(lstatSync(installed).isSymbolicLink()).toBe(true)
    expect(await realpath(installed)).toBe(await realpath(EXAMPLE))
    // Installing it left nothing behind in the repository's example folder.
    expect(existsSync(join(EXAMPLE, 'node_modules'))).toBe(false)
    expect(existsSync(join(EXAMPLE, 'package-lock.json'))).toBe(false)
  })

  it('is discovered with its runner and evaluator, tagged with the package as their source', async () => {
    const registry = builtinRegistry()
    const result = await discoverPlugins(project, registry)
    expect(result.warnings).toEqual([])
    expect(result.notInstalled).toEqual([])
    expect(result.packages).toEqual([
      {
        name: 'agentevalops-plugin-example',
        version: '0.1.0',
        dir: await realpath(EXAMPLE),
        adapters: [
          { kind: 'runner', id: 'example-echo' },
          { kind: 'evaluator', id: 'example-nonempty' },
        ],
      },
    ])
    const source = { type: 'package', name: 'agentevalops-plugin-example', version: '0.1.0' }
    expect(registry.sourceOf('runner', 'example-echo')).toEqual(source)
    expect(registry.sourceOf('evaluator', 'example-nonempty')).toEqual(source)
    // Built-ins are still there beside them.
    expect(registry.ids('runner')).toEqual(['example-echo', ...BUILTIN_IDS.runner].sort())
  })

  it('runs a toy task through the engine with its runner and evaluator, and the trial passes', async () => {
    const registry = builtinRegistry()
    await discoverPlugins(project, registry)
    const runner = registry.create('runner', 'example-echo', {})
    const evaluator = registry.create('evaluator', 'example-nonempty', {})
    const benchmark = toyBenchmark()
    const [task] = await benchmark.listTasks({ id: 'capital-france' })

    const { record, events } = await runTrial({
      runId: 'plugin-example',
      benchmark: await benchmark.info(),
      task: task!,
      trial: 0,
      runner,
      evaluators: [evaluator, registry.create('evaluator', 'contains', { expected: 'France' })],
      policy: [registry.create('policy', 'tool-access', { deny: ['delete_database'] })],
      traceStore: new MemoryTraceStore(),
    })

    expect(record.outcome).toBe('passed')
    expect(record.runner).toEqual({ name: 'example-echo', kind: 'example', config: {} })
    expect(record.result?.finalAnswer).toBe(task!.prompt)
    const finalAnswer = events.find((e) => e.kind === 'agent.final_answer')
    expect(events.map((e) => e.kind).slice(0, 3)).toEqual([
      'agent.plan',
      'agent.final_answer',
      'agent.terminal',
    ])
    expect(record.scores[0]).toMatchObject({
      evaluatorId: 'example-nonempty',
      kind: 'deterministic',
      passed: true,
      score: 1,
      citations: [finalAnswer!.step],
    })
  })

  it('rejects an unknown option as a config error naming the adapter', async () => {
    const registry = builtinRegistry()
    await discoverPlugins(project, registry)
    let error: unknown
    try {
      registry.create('runner', 'example-echo', { prefx: '>' })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AgentEvalOpsError)
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' })
    expect((error as Error).message).toBe(
      'runner "example-echo": unknown option "prefx". It takes no options.',
    )
  })
})
