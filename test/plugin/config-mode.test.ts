// Config mode of the plugin: what loadConfigSet derives from configs and the environment, and what agentEvalOps()
// does to the evals project in configureVitest when AGENTEVALOPS_CONFIG is set.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  agentEvalOps,
  CONFIGS_PROVIDE_KEY,
  configFilesFromEnv,
  labelsFromEnv,
  loadConfigSet,
  ownFile,
} from '../../plugin/vite-plugin.ts'
import { BundleReporter } from '../../reporters/bundle-reporter.ts'
import { ProgressReporter } from '../../reporters/progress-reporter.ts'
import { ConfigError } from '../../src/config/index.ts'
import { checksumOf, shardFromEnvironment as shardFromEnv } from '../../src/core/index.ts'

const SMOKE = `name: smoke
labels: { purpose: smoke, team: core }
benchmark: { id: toy, filter: { expectedOutcome: passed } }
agent: { runner: mock-scripted }
concurrency: 4
`
const OTHER = `name: other
labels: { team: agents }
benchmark: { id: toy, tasks: [arith-add] }
agent: { runner: mock-scripted, options: { name: "\${AEO_TEST_RUNNER_NAME}" } }
concurrency: 12
storage: { runs_dir: elsewhere }
`

let root: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aeo-config-mode-'))
  await mkdir(join(root, 'configs'))
  await writeFile(join(root, 'configs', 'smoke.yaml'), SMOKE)
  await writeFile(join(root, 'configs', 'other.yaml'), OTHER)
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('configFilesFromEnv and labelsFromEnv', () => {
  it('splits AGENTEVALOPS_CONFIG on the path delimiter, dropping blanks', () => {
    expect(configFilesFromEnv({})).toEqual([])
    expect(configFilesFromEnv({ AGENTEVALOPS_CONFIG: '' })).toEqual([])
    expect(configFilesFromEnv({ AGENTEVALOPS_CONFIG: ['a.yaml', ' ', 'b/c.yaml'].join(delimiter) })).toEqual([
      'a.yaml',
      'b/c.yaml',
    ])
  })

  it('reads AGENTEVALOPS_LABELS as a JSON object of strings, and refuses anything else', () => {
    expect(labelsFromEnv({})).toEqual({})
    expect(labelsFromEnv({ AGENTEVALOPS_LABELS: '{"a":"1"}' })).toEqual({ a: '1' })
    for (const bad of ['nope', '[]', '{"a":1}', 'null'])
      expect(() => labelsFromEnv({ AGENTEVALOPS_LABELS: bad })).toThrow(/must be a JSON object of strings/)
  })
})

describe('shardFromEnv', () => {
  it('reads AGENTEVALOPS_SHARD as <index>/<count>, 1-based', () => {
    expect(shardFromEnv({})).toBeNull()
    expect(shardFromEnv({ AGENTEVALOPS_SHARD: '2/3' })).toEqual({ index: 2, count: 3 })
    for (const bad of ['0/3', '4/3', '2', 'a/b', '1/0'])
      expect(() => shardFromEnv({ AGENTEVALOPS_SHARD: bad })).toThrow(
        /AGENTEVALOPS_SHARD must be <index>\/<count>/,
      )
  })
})

describe('loadConfigSet', () => {
  it('one config: its labels and name, its runs folder and concurrency, a hash of its hash, a replay', async () => {
    const set = await loadConfigSet(root, ['configs/smoke.yaml'], {})
    expect(set.provided.root).toBe(root)
    expect(set.provided.trials).toBeNull()
    expect(set.provided.configs).toHaveLength(1)
    const [loaded] = set.provided.configs
    expect(loaded).toMatchObject({ file: 'configs/smoke.yaml', config: { name: 'smoke', concurrency: 4 } })
    expect(JSON.parse(JSON.stringify(set.provided))).toEqual(set.provided) // plain JSON, safe to provide
    expect(set).toMatchObject({
      runsDir: 'runs',
      labels: { purpose: 'smoke', team: 'core', config: 'smoke' },
      runId: null,
      maxConcurrency: 4,
      configHash: checksumOf([loaded!.hash]),
      replay: { configs: ['configs/smoke.yaml'], trials: null, concurrency: null, labels: {}, envRefs: [] },
      warnings: [],
    })
  })

  it('several configs: later labels win, names joined, the largest concurrency, the first runs folder', async () => {
    const set = await loadConfigSet(root, ['configs/other.yaml', join(root, 'configs', 'smoke.yaml')], {})
    expect(set.provided.configs.map((c) => c.file)).toEqual(['configs/other.yaml', 'configs/smoke.yaml'])
    expect(set.labels).toEqual({ team: 'core', purpose: 'smoke', config: 'other,smoke' })
    expect(set.maxConcurrency).toBe(12)
    expect(set.runsDir).toBe('elsewhere')
    expect(set.configHash).toBe(checksumOf(set.provided.configs.map((c) => c.hash)))
    // Environment references stay references; the replay names the variables, never values.
    expect(set.provided.configs[0]!.config.agent.options).toEqual({ name: '${AEO_TEST_RUNNER_NAME}' })
    expect(set.replay.envRefs).toEqual(['AEO_TEST_RUNNER_NAME'])
  })

  it('refuses a shard the environment gets wrong, before anything runs', async () => {
    await expect(loadConfigSet(root, ['configs/smoke.yaml'], { JOB_COMPLETION_INDEX: '1' })).rejects.toThrow(
      /JOB_COMPLETION_INDEX is set \(1\) but AGENTEVALOPS_SHARD_COUNT is not/,
    )
  })

  it('takes the overrides from the environment', async () => {
    const set = await loadConfigSet(root, ['configs/smoke.yaml'], {
      AGENTEVALOPS_TRIALS: '3',
      AGENTEVALOPS_MAX_CONCURRENCY: '2',
      AGENTEVALOPS_RUNS_DIR: '/abs/runs',
      AGENTEVALOPS_LABELS: '{"team":"override","config":"mine"}',
      AGENTEVALOPS_SHARD: '1/2',
    })
    expect(set.provided.trials).toBe(3)
    expect(set.maxConcurrency).toBe(2)
    expect(set.runsDir).toBe('/abs/runs')
    expect(set.labels).toEqual({ purpose: 'smoke', team: 'override', config: 'mine' })
    expect(set.replay).toMatchObject({
      trials: 3,
      concurrency: 2,
      labels: { team: 'override', config: 'mine' },
    })
    await expect(loadConfigSet(root, ['configs/smoke.yaml'], { AGENTEVALOPS_TRIALS: '0' })).rejects.toThrow(
      /AGENTEVALOPS_TRIALS must be a whole number ≥ 1, got "0"/,
    )
  })

  it('throws one ConfigError with the findings of every file, located and relative to the root', async () => {
    await writeFile(
      join(root, 'configs', 'bad1.yaml'),
      'name: bad1\nbenchmark: { id: toy }\nagent: { runner: nope }\n',
    )
    await writeFile(
      join(root, 'configs', 'bad2.yaml'),
      'name: bad2\ntrials: 0\nagent: { runner: mock-scripted }\n',
    )
    const error = await loadConfigSet(
      root,
      ['configs/bad1.yaml', 'configs/smoke.yaml', 'configs/bad2.yaml'],
      {},
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    const lines = (error as ConfigError).message.split('\n')
    expect(lines.map((l) => l.replace(/: .*/, ''))).toEqual([
      'configs/bad1.yaml:3:10 agent.runner',
      'configs/bad2.yaml:1:1 benchmark',
      'configs/bad2.yaml:2:1 trials',
    ])
  })

  it('expands the run id, and refuses one whose bundle exists, one that names no folder, or two of them', async () => {
    const withId = (id: string) => SMOKE.replace('name: smoke', `name: smoke\nrun_id: ${id}`)
    await writeFile(join(root, 'configs', 'id.yaml'), withId('nightly-${AEO_TEST_RUN}'))
    const set = await loadConfigSet(root, ['configs/id.yaml'], { AEO_TEST_RUN: '42' })
    expect(set.runId).toBe('nightly-42')

    await expect(loadConfigSet(root, ['configs/id.yaml'], {})).rejects.toThrow(/AEO_TEST_RUN is not set/)
    await expect(loadConfigSet(root, ['configs/id.yaml'], { AEO_TEST_RUN: 'a/b' })).rejects.toThrow(
      /run_id expands to "nightly-a\/b", which cannot name a bundle folder/,
    )
    await mkdir(join(root, 'runs', 'nightly-42'), { recursive: true })
    await expect(loadConfigSet(root, ['configs/id.yaml'], { AEO_TEST_RUN: '42' })).rejects.toMatchObject({
      code: 'BUNDLE_EXISTS',
    })
    await writeFile(join(root, 'configs', 'id2.yaml'), withId('other').replace('name: smoke', 'name: smoke2'))
    await expect(
      loadConfigSet(root, ['configs/id.yaml', 'configs/id2.yaml'], { AEO_TEST_RUN: '7' }),
    ).rejects.toThrow(/the configs name different run ids: nightly-7, other/)
  })

  it('refuses two configs of the same name', async () => {
    await writeFile(join(root, 'configs', 'copy.yaml'), SMOKE)
    await expect(loadConfigSet(root, ['configs/smoke.yaml', 'configs/copy.yaml'], {})).rejects.toThrow(
      /configs\/smoke\.yaml and configs\/copy\.yaml are both named "smoke"/,
    )
  })
})

describe('agentEvalOps() in config mode', () => {
  const saved = { ...process.env }
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
    Object.assign(process.env, saved)
  })

  /** The parts of Vitest configureVitest touches. */
  function fakes() {
    const provided: Record<string, unknown> = {}
    const project = {
      name: 'evals',
      config: { include: ['evals/**/*.eval.ts'], exclude: ['**/node_modules/**'], maxConcurrency: 10 },
      provide: (key: string, value: unknown) => (provided[key] = value),
    }
    const warnings: string[] = []
    const unwatched: string[] = []
    const vitest = {
      config: { root, reporters: [] as unknown[] },
      logger: { warn: (m: string) => warnings.push(m) },
      vite: { watcher: { unwatch: (path: string) => unwatched.push(path) } },
    }
    return { project, vitest, provided, warnings, unwatched }
  }

  async function configure(f: ReturnType<typeof fakes>): Promise<void> {
    const hook = agentEvalOps().configureVitest as unknown as (ctx: unknown) => Promise<void>
    await hook({ vitest: f.vitest, project: f.project })
  }

  it('makes the config-driven eval file the only test file, provides the configs and sets up the reporter', async () => {
    for (const name of Object.keys(process.env))
      if (name.startsWith('AGENTEVALOPS_')) delete process.env[name]
    process.env.AGENTEVALOPS_CONFIG = 'configs/smoke.yaml'
    const f = fakes()
    await configure(f)
    expect(f.project.config.include).toEqual([ownFile('config-eval')])
    expect(ownFile('config-eval')).toMatch(/plugin\/config-eval\.ts$/)
    expect(f.project.config.exclude).toEqual([])
    expect(f.project.config.maxConcurrency).toBe(4)
    expect(f.provided[CONFIGS_PROVIDE_KEY]).toMatchObject({
      root,
      trials: null,
      configs: [{ file: 'configs/smoke.yaml' }],
    })
    expect(f.vitest.config.reporters).toHaveLength(2)
    expect(f.vitest.config.reporters[1]).toBeInstanceOf(ProgressReporter)
    const reporter = f.vitest.config.reporters[0] as BundleReporter
    expect(reporter).toBeInstanceOf(BundleReporter)
    expect((reporter as unknown as { options: unknown }).options).toMatchObject({
      project: 'evals',
      runsDir: 'runs',
      labels: { purpose: 'smoke', team: 'core', config: 'smoke' },
      runId: undefined,
      replay: { configs: ['configs/smoke.yaml'] },
    })
    // What runs write is no source: watch mode's file watcher is told to leave the runs folder alone.
    expect(f.unwatched).toEqual([join(root, 'runs')])
  })

  it('has the watcher leave the runs folder alone outside config mode too', async () => {
    for (const name of Object.keys(process.env))
      if (name.startsWith('AGENTEVALOPS_')) delete process.env[name]
    process.env.AGENTEVALOPS_RUNS_DIR = 'out/bundles'
    const f = fakes()
    await configure(f)
    expect(f.unwatched).toEqual([join(root, 'out', 'bundles')])
    // …but never the sources: a runs folder that is the root, or holds it, stays watched.
    for (const runsDir of ['.', '..']) {
      process.env.AGENTEVALOPS_RUNS_DIR = runsDir
      const g = fakes()
      await configure(g)
      expect(g.unwatched).toEqual([])
    }
  })

  it('leaves maxConcurrency to AGENTEVALOPS_MAX_CONCURRENCY when set', async () => {
    process.env.AGENTEVALOPS_CONFIG = 'configs/smoke.yaml'
    process.env.AGENTEVALOPS_MAX_CONCURRENCY = '3'
    const f = fakes()
    f.project.config.maxConcurrency = 3 // what the plugin's config() hook set from the variable
    await configure(f)
    expect(f.project.config.maxConcurrency).toBe(3)
  })

  it('stops Vitest with the ConfigError of a broken config, before changing anything', async () => {
    await writeFile(join(root, 'configs', 'bad.yaml'), 'name: bad\n')
    process.env.AGENTEVALOPS_CONFIG = 'configs/bad.yaml'
    const f = fakes()
    await expect(configure(f)).rejects.toThrow(/^configs\/bad\.yaml:1:1 benchmark: missing/)
    expect(f.project.config.include).toEqual(['evals/**/*.eval.ts'])
    expect(f.vitest.config.reporters).toEqual([])
  })

  it('without AGENTEVALOPS_CONFIG, keeps the project as configured', async () => {
    delete process.env.AGENTEVALOPS_CONFIG
    const f = fakes()
    await configure(f)
    expect(f.project.config.include).toEqual(['evals/**/*.eval.ts'])
    expect(f.provided).toEqual({})
    expect(f.vitest.config.reporters.map((r) => (r as object).constructor.name)).toEqual([
      'BundleReporter',
      'ProgressReporter',
    ])
  })
})
