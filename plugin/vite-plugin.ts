/// <reference types="vitest/config" />
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
// The module augmented below (and by reporters/vitest-channel.ts) must be part of every program that reaches this
// file: a program rooted at the CLI, which imports only vitest/node, otherwise rejects the augmentation.
import type {} from 'vitest'
import {
  AgentEvalOpsError,
  SHARD_ENV,
  checksumOf,
  errorMessage,
  shardFromEnvironment,
  type JsonValue,
  type Shard,
} from '../src/core/index.ts'
import type { ConfigFinding, RunConfig } from '../src/config/index.ts'
import type { ConfigReplay } from '../reporters/replay-command.ts'
import type { CompareOptions, SummaryOptions } from '../src/scorers/index.ts'

export interface AgentEvalOpsOptions {
  /** Eval files of this project. Default: evals/**\/*.eval.ts */
  include?: string[]
  /** Where bundles are written, relative to the Vitest root. Default: runs; AGENTEVALOPS_RUNS_DIR overrides. */
  runsDir?: string
  /** In-flight trials per eval file. Default 10; AGENTEVALOPS_MAX_CONCURRENCY overrides. */
  maxConcurrency?: number
  /** Per-case timeout in ms (a backstop: limits.maxWallSeconds is the real per-trial control). Default 10 min. */
  testTimeout?: number
  /** Free-form labels stamped into metadata.json. */
  labels?: Record<string, string>
  /** How scores.json's statistics are computed; see docs/statistics.md. */
  statistics?: SummaryOptions
  /**
   * Compare every run with this bundle folder, or `latest` (the newest complete bundle of the same benchmarks in
   * runsDir): each benchmark gets a gate case that fails on NO_GO. AGENTEVALOPS_BASELINE overrides.
   */
  baseline?: string
  /** Settings of the baseline comparison (alpha, maxDrop, minPairs, failOnBroken, force). */
  compare?: CompareOptions
  /**
   * Earlier bundle(s) whose finished trials are taken over instead of run again; AGENTEVALOPS_RESUME overrides
   * (folders joined by the path delimiter). See docs/cli.md (`run --resume`).
   */
  resume?: string | readonly string[]
  /**
   * Live progress lines while the run goes (trials done, pass rate and cost so far). Default true;
   * AGENTEVALOPS_PROGRESS=0 turns them off.
   */
  progress?: boolean
}

/** `0` (or `false`, `off`) turns the live progress lines off, whatever the plugin option says. */
export const PROGRESS_ENV = 'AGENTEVALOPS_PROGRESS'

/** Whether the progress reporter runs: the plugin option, then the environment, can turn it off. */
export function progressEnabled(option: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (option === false) return false
  const raw = env[PROGRESS_ENV]?.trim().toLowerCase()
  return raw !== '0' && raw !== 'false' && raw !== 'off'
}

/** `1` annotates every trial case with its scores, `0` never does; unset, only when a reporter reads them. */
export const ANNOTATE_ENV = 'AGENTEVALOPS_ANNOTATE'

/** Provided as true when eval cases should annotate their trial's outcome, scores and policy verdicts. */
export const ANNOTATE_PROVIDE_KEY = 'agentevalopsAnnotate'

/**
 * Built-in reporters that make no use of a passing case's annotations: `default` and `agent` show a failed case's,
 * whose error already explains the trial, and `github-actions` shows only those made in the test file itself,
 * which ours never are.
 */
const IGNORING_ANNOTATIONS = new Set([
  'default',
  'agent',
  'minimal',
  'dot',
  'json',
  'tree',
  'hanging-process',
  'github-actions',
])

/**
 * Whether trial cases should annotate: each annotation is a round trip from the worker, which a fast benchmark
 * feels (see docs/ci.md), so they are made only when something reads them: JUnit (as properties), blob (for a
 * merged JUnit), verbose, tap, html, the UI, or a reporter we do not know.
 */
export function annotationsWanted(
  reporters: readonly unknown[],
  ui: boolean,
  env: NodeJS.ProcessEnv,
  ours: (reporter: unknown) => boolean = () => false,
): boolean {
  const forced = env[ANNOTATE_ENV]?.trim()
  if (forced === '1') return true
  if (forced === '0') return false
  if (ui) return true
  return reporters.some((entry) => {
    const reporter: unknown = Array.isArray(entry) ? entry[0] : entry
    if (typeof reporter === 'string') return !IGNORING_ANNOTATIONS.has(reporter)
    return !ours(reporter)
  })
}

/**
 * Least time between progress lines: in a terminal they scroll above Vitest's own output, in a CI log every line
 * stays, so there a long run prints mostly on each tenth of its trials.
 */
function progressIntervalMs(): number {
  return process.stdout.isTTY ? 2000 : 15_000
}

/**
 * The environment variables of config mode. `agentevalops run` sets them; set by hand they make
 * `vitest --project evals` run the same thing.
 */
export const CONFIG_ENV = {
  /** RunConfig files, relative to the Vitest root, joined by the platform's path delimiter (`:`). */
  config: 'AGENTEVALOPS_CONFIG',
  /** Trials per task, overriding every config's `trials`. */
  trials: 'AGENTEVALOPS_TRIALS',
  /** In-flight trials, overriding the configs' `concurrency` (and the plugin option). */
  maxConcurrency: 'AGENTEVALOPS_MAX_CONCURRENCY',
  /** Where bundles go, overriding the config's `storage.runs_dir` (and the plugin option). */
  runsDir: 'AGENTEVALOPS_RUNS_DIR',
  /** A JSON object of labels overriding the configs' labels (`--label k=v`). */
  labels: 'AGENTEVALOPS_LABELS',
  /**
   * `<index>/<count>`: run one shard of the tasks (`--shard`), every trial of a task in the same shard. Without it,
   * a Kubernetes or AWS Batch index with AGENTEVALOPS_SHARD_COUNT picks the shard (see src/core/shard-env.ts).
   */
  shard: SHARD_ENV,
  /** A baseline bundle folder or `latest` (`--baseline`): overrides the plugin's `baseline`. */
  baseline: 'AGENTEVALOPS_BASELINE',
  /** Bundle folders to resume (`--resume`), joined by the path delimiter: overrides the plugin's `resume`. */
  resume: 'AGENTEVALOPS_RESUME',
} as const

/** What config mode provides to the eval workers, under CONFIGS_PROVIDE_KEY: plain JSON. */
export interface ProvidedConfigs {
  /** The Vitest root: config files are relative to it, and adapter packages are discovered from it. */
  root: string
  configs: ProvidedConfig[]
  /** AGENTEVALOPS_TRIALS, when set: replaces every config's `trials`. */
  trials: number | null
}

export type { Shard }

export interface ProvidedConfig {
  /** The config file, relative to the root (absolute when outside it). */
  file: string
  config: RunConfig
  hash: string
}

export const CONFIGS_PROVIDE_KEY = 'agentevalopsConfigs'

declare module 'vitest' {
  interface ProvidedContext {
    [CONFIGS_PROVIDE_KEY]: ProvidedConfigs
    [ANNOTATE_PROVIDE_KEY]: true
  }
}

/**
 * Set to 1 by `agentevalops run`, which handles SIGINT/SIGTERM itself (the first cancels the run): eval workers
 * then leave those signals to it instead of dying mid-report when a terminal's Ctrl+C reaches the whole group.
 */
export const RUN_CLI_ENV = 'AGENTEVALOPS_RUN_CLI'

/**
 * The Vite plugin placed inside the evals project: project-scoped options go through `config`, and the bundle and
 * progress reporters are pushed into the root config from `configureVitest` (reporters are root-only; pushing there
 * also keeps Vitest's automatic github-actions reporter).
 *
 * Config mode: with AGENTEVALOPS_CONFIG set, the project runs the configs' benchmarks instead of its eval files
 * (its include becomes our config-driven eval file), so `vitest --project evals` and `agentevalops run` are the
 * same run.
 */
export function agentEvalOps(options: AgentEvalOpsOptions = {}): Plugin {
  const maxConcurrency = resolveConcurrency(options.maxConcurrency)
  return {
    name: 'agentevalops',
    config() {
      return {
        test: {
          include: options.include ?? ['evals/**/*.eval.ts'],
          setupFiles: [ownFile('setup')],
          testTimeout: options.testTimeout ?? 600_000,
          maxConcurrency,
        },
      }
    },
    // Vitest awaits this hook (Promise.all over plugins) though its type says void. The imports are lazy so that
    // eval workers, which load this module for evalBenchmark(), never load the reporter or the config loader.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    async configureVitest({ vitest, project }) {
      const [{ BundleReporter }, { ProgressReporter }, { shardTasksNotFiles }] = await Promise.all([
        import('../reporters/bundle-reporter.ts'),
        import('../reporters/progress-reporter.ts'),
        import('./task-shard.ts'),
      ])
      const annotate = annotationsWanted(
        vitest.config.reporters,
        vitest.config.ui,
        process.env,
        (r) => r instanceof BundleReporter || r instanceof ProgressReporter,
      )
      // Beside the bundle reporter, once the project is set up: a config that fails to load changes nothing.
      const addCiOutput = (): void => {
        if (annotate) project.provide(ANNOTATE_PROVIDE_KEY, true)
        if (progressEnabled(options.progress, process.env)) {
          vitest.config.reporters.push(
            new ProgressReporter({ project: project.name, intervalMs: progressIntervalMs() }),
          )
        }
      }
      // Vitest's --shard first, then AGENTEVALOPS_SHARD, then the engine's index: every mode splits tasks.
      const flag = vitest.config.shard ?? null
      const shard = shardFromEnvironment(process.env, flag)
      if (flag) shardTasksNotFiles(vitest, project.name, flag)
      const files = configFilesFromEnv(process.env)
      const baselineSpec = process.env[CONFIG_ENV.baseline] || options.baseline
      const resumeEnv = process.env[CONFIG_ENV.resume]
      const comparing = {
        statistics: options.statistics,
        baseline: baselineSpec ? { spec: baselineSpec, options: options.compare } : undefined,
        resume: resumeEnv
          ? resumeEnv.split(delimiter).filter(Boolean)
          : typeof options.resume === 'string'
            ? [options.resume]
            : options.resume,
      }
      if (files.length === 0) {
        const runsDir = process.env[CONFIG_ENV.runsDir] || options.runsDir || 'runs'
        unwatchOutput(vitest.vite.watcher, vitest.config.root, resolve(vitest.config.root, runsDir))
        vitest.config.reporters.push(
          new BundleReporter({
            project: project.name,
            runsDir,
            labels: options.labels ?? {},
            shard: shard ?? undefined,
            ...comparing,
          }),
        )
        addCiOutput()
        return
      }

      // A ConfigError thrown here stops Vitest before anything runs, with one line per finding.
      const set = await loadConfigSet(vitest.config.root, files, process.env, {
        warn: (line) => vitest.logger.warn(`agentevalops: ${line}`),
      })
      // Exactly our config-driven eval file: absolute, so it is found wherever the package is installed (the
      // default exclude would drop it from node_modules, and nothing else belongs to this run).
      project.config.include = [ownFile('config-eval')]
      project.config.exclude = []
      if (!envSet(process.env[CONFIG_ENV.maxConcurrency])) project.config.maxConcurrency = set.maxConcurrency
      project.provide(CONFIGS_PROVIDE_KEY, set.provided)
      unwatchOutput(vitest.vite.watcher, vitest.config.root, resolve(vitest.config.root, set.runsDir))
      vitest.config.reporters.push(
        new BundleReporter({
          project: project.name,
          runsDir: set.runsDir,
          labels: { ...(options.labels ?? {}), ...set.labels },
          runId: set.runId ?? undefined,
          configHash: set.configHash,
          replay: set.replay,
          shard: shard ?? undefined,
          ...comparing,
          // The run-level comparison in scores.json follows the configs' `compare` settings, as their gates do.
          baseline: comparing.baseline && {
            spec: comparing.baseline.spec,
            options: { ...comparing.baseline.options, ...set.compare },
          },
        }),
      )
      addCiOutput()
    },
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Config mode

/** Everything config mode derives from the configs and the environment, checked. */
export interface ConfigSet {
  provided: ProvidedConfigs
  /** Bundles folder, relative to the root (or absolute). */
  runsDir: string
  /** Config labels (later configs win), `config` (the config names) and the AGENTEVALOPS_LABELS overrides. */
  labels: Record<string, string>
  /** The configs' run_id with env references expanded, or null for a fresh UUIDv7. */
  runId: string | null
  maxConcurrency: number
  /** A hash over the loaded configs' hashes. */
  configHash: string
  replay: ConfigReplay
  /** Lines about adapter packages that could not be loaded. */
  warnings: string[]
  /** The configs' `compare` settings merged (later configs win): how the run's baseline is compared with. */
  compare: CompareOptions
}

/** The config files named by AGENTEVALOPS_CONFIG, in order. */
export function configFilesFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env[CONFIG_ENV.config] ?? '')
    .split(delimiter)
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/**
 * Loads and validates every config (against the built-in adapters and those of the root's adapter packages),
 * reads the overrides from `env`, and checks what only makes sense for the set: distinct names, one run id whose
 * bundle does not exist yet. Throws a ConfigError listing every finding of every file, or an AgentEvalOpsError.
 */
export async function loadConfigSet(
  root: string,
  files: readonly string[],
  env: NodeJS.ProcessEnv,
  hooks: { warn?: (line: string) => void } = {},
): Promise<ConfigSet> {
  const [{ builtinRegistry }, config] = await Promise.all([
    import('./builtin-adapters.ts'),
    import('../src/config/index.ts'),
  ])
  const trials = positiveIntFromEnv(env, CONFIG_ENV.trials, 'the trials override (--trials)')
  const concurrency = positiveIntFromEnv(env, CONFIG_ENV.maxConcurrency, 'the concurrency (--concurrency)')
  const labelOverrides = labelsFromEnv(env)
  // Checked with the rest (the CLI loads the set before it starts Vitest); configureVitest picks the shard.
  shardFromEnvironment(env)

  const registry = builtinRegistry()
  const discovery = await config.discoverPlugins(root, registry)
  for (const warning of discovery.warnings) hooks.warn?.(warning)

  const findings: ConfigFinding[] = []
  const loaded: ProvidedConfig[] = []
  for (const file of files) {
    const absolute = resolve(root, file)
    const shown = displayPath(root, absolute)
    let text: string
    try {
      text = await readFile(absolute, 'utf8')
    } catch (e) {
      throw new AgentEvalOpsError('CONFIG_INVALID', `cannot read the config file: ${errorMessage(e)}`, {
        location: { file: shown },
        hint: 'Check the path (relative to the project root); configs usually live in configs/*.yaml.',
        cause: e,
      })
    }
    try {
      const { config: parsed, hash } = config.parseRunConfig(text, shown, registry)
      loaded.push({ file: shown, config: parsed, hash })
    } catch (e) {
      if (!(e instanceof config.ConfigError)) throw e
      findings.push(...e.findings)
    }
  }
  if (findings.length > 0) throw new config.ConfigError(findings)
  if (loaded.length === 0) {
    throw new AgentEvalOpsError('CONFIG_INVALID', 'no config file was given.', {
      hint: `Name one or more RunConfig files (AGENTEVALOPS_CONFIG, or agentevalops run <config.yaml…>).`,
    })
  }

  const byName = new Map<string, string>()
  for (const { file, config: c } of loaded) {
    const other = byName.get(c.name)
    if (other !== undefined) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${other} and ${file} are both named ${JSON.stringify(c.name)}: the configs of one run need distinct names.`,
        { hint: 'Rename one of them (the name tells their trials apart in reports and -t filters).' },
      )
    }
    byName.set(c.name, file)
  }

  const runIds = [
    ...new Set(
      loaded.flatMap(({ config: c }) =>
        c.runId === undefined ? [] : [config.expandEnvRefs(c.runId, env, 'run_id') as string],
      ),
    ),
  ]
  if (runIds.length > 1) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `the configs name different run ids: ${runIds.join(', ')}.`,
      {
        hint: 'A run has one bundle: set run_id in one config only, or to the same value.',
      },
    )
  }
  const runId = runIds[0] ?? null
  const runsDir = env[CONFIG_ENV.runsDir] || loaded[0]!.config.storage.runsDir
  if (runId !== null) {
    if (!/^[A-Za-z0-9._-]+$/.test(runId) || runId === '.' || runId === '..') {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `run_id expands to ${JSON.stringify(runId)}, which cannot name a bundle folder.`,
        {
          hint: 'Use letters, digits, ".", "_" and "-" only, in the run id and in the variables it refers to.',
        },
      )
    }
    const existing = join(resolve(root, runsDir), runId)
    if (existsSync(existing)) {
      throw new AgentEvalOpsError(
        'BUNDLE_EXISTS',
        `a bundle already exists at ${existing}; bundles are never overwritten.`,
        {
          hint: 'Give the run another run_id (e.g. ${CI_RUN_NUMBER} in it), or remove run_id for a fresh id.',
        },
      )
    }
  }

  const configLabels: Record<string, string> = {}
  for (const { config: c } of loaded) Object.assign(configLabels, c.labels)
  const labels = {
    ...configLabels,
    config: loaded.map(({ config: c }) => c.name).join(','),
    ...labelOverrides,
  }

  return {
    provided: { root, configs: loaded, trials },
    runsDir,
    labels,
    runId,
    maxConcurrency: concurrency ?? Math.max(...loaded.map(({ config: c }) => c.concurrency)),
    configHash: checksumOf(loaded.map((c) => c.hash)),
    replay: {
      configs: loaded.map((c) => c.file),
      trials,
      concurrency,
      labels: labelOverrides,
      envRefs: config.envRefNames(loaded.map((c) => c.config) as unknown as JsonValue),
    },
    warnings: discovery.warnings,
    compare: Object.assign({}, ...loaded.map(({ config: c }) => c.compare ?? {})) as CompareOptions,
  }
}

/** A path relative to the root when inside it (as users write them), else absolute. */
function displayPath(root: string, absolute: string): string {
  const rel = relative(root, absolute)
  return rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel) ? absolute : rel
}

function envSet(value: string | undefined): value is string {
  return value !== undefined && value !== ''
}

function positiveIntFromEnv(env: NodeJS.ProcessEnv, name: string, what: string): number | null {
  const raw = env[name]
  if (!envSet(raw)) return null
  const value = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${name} must be a whole number ≥ 1, got ${JSON.stringify(raw)}.`,
      {
        hint: `Fix ${what}.`,
      },
    )
  }
  return value
}

/**
 * The runs folder holds what runs write (bundles, staging, worker logs), never a source a test imports. Vite's
 * watcher covers the whole root, so in watch mode it would otherwise take every file a run writes as a change to
 * look at, on the main thread, while the run goes on.
 */
function unwatchOutput(
  watcher: { unwatch(paths: string | readonly string[]): unknown },
  root: string,
  dir: string,
): void {
  // A runs folder that is the root or holds it would take the sources with it.
  const fromDir = relative(dir, root)
  if (fromDir === '' || (!fromDir.startsWith('..') && !isAbsolute(fromDir))) return
  watcher.unwatch(dir)
}

/** AGENTEVALOPS_LABELS: a JSON object of string values. */
export function labelsFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const raw = env[CONFIG_ENV.labels]
  if (!envSet(raw)) return {}
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    value = undefined
  }
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    Object.values(value).some((v) => typeof v !== 'string')
  ) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${CONFIG_ENV.labels} must be a JSON object of strings, like {"team":"evals"}, got ${JSON.stringify(raw)}.`,
      { hint: 'Use agentevalops run --label key=value, which sets it for you.' },
    )
  }
  return value as Record<string, string>
}

function resolveConcurrency(fromOptions: number | undefined): number {
  const raw = process.env[CONFIG_ENV.maxConcurrency]
  const value = raw === undefined || raw === '' ? (fromOptions ?? 10) : Number(raw)
  if (!Number.isInteger(value) || value < 1) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `max concurrency must be a whole number ≥ 1, got ${raw ?? fromOptions}.`,
      {
        hint: 'Fix AGENTEVALOPS_MAX_CONCURRENCY or the maxConcurrency option of agentEvalOps().',
      },
    )
  }
  return value
}

/**
 * A module of ours in plugin/: .ts when running from source, .js from the build, where this code may sit in a
 * shared chunk at the root of dist/ rather than in dist/plugin/.
 */
export function ownFile(name: string): string {
  for (const candidate of [`./${name}.js`, `./plugin/${name}.js`, `./${name}.ts`]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url))
    if (existsSync(path)) return path
  }
  throw new Error(`agentevalops: cannot find its own ${name} module next to ${import.meta.url}`)
}
