import { existsSync } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { createVitest as CreateVitest, Vitest } from 'vitest/node'
import {
  agentEvalOps,
  CONFIG_ENV,
  loadConfigSet,
  RUN_CLI_ENV,
  type ConfigSet,
} from '../../../plugin/vite-plugin.ts'
import { LATEST_BASELINE, MANIFEST_FILE } from '../../bundles/index.ts'
import { UPLOAD_ENV } from '../../../reporters/upload-sealed.ts'
import { ConfigError, formatFinding } from '../../config/index.ts'
import { AgentEvalOpsError, errorMessage, isAgentEvalOpsError } from '../../core/index.ts'
import { parseS3Url } from '../../stores/object-store/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { usageErrors, type Command } from '../command.ts'
import type { CliIO } from '../io.ts'
import { runParallel } from './run-parallel.ts'

type CliOptions = Parameters<typeof CreateVitest>[1]

/** The project name of a run without a Vitest config of the user's (`--vitest-config`). */
export const RUN_PROJECT = 'evals'

/** `agentevalops run` arguments, checked. */
export interface RunArgs {
  help: boolean
  /** Config files as given (relative to the working directory, which is the Vitest root). */
  configs: string[]
  testNamePattern: string | undefined
  /** Exit 0, as Vitest's option does, when no trial is left to run (e.g. -t matched none). */
  passWithNoTests: boolean
  /** `<index>/<count>`: a shard of the configs' tasks (AGENTEVALOPS_SHARD), not Vitest's shard of files. */
  shard: string | undefined
  trials: number | undefined
  concurrency: number | undefined
  /** Runs folder. */
  output: string | undefined
  labels: Record<string, string>
  reporters: string[]
  vitestConfig: string | undefined
  project: string | undefined
  /** s3://bucket/prefix the sealed bundle is uploaded to (AGENTEVALOPS_UPLOAD). */
  upload: string | undefined
  /** A baseline bundle folder or `latest` (AGENTEVALOPS_BASELINE). */
  baseline: string | undefined
  /** Earlier bundles whose finished trials are taken over (AGENTEVALOPS_RESUME). */
  resume: string[]
  /** `--parallel N`: N shard processes on this machine, merged into one bundle (see run-parallel.ts). */
  parallel: number | undefined
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  testNamePattern: { type: 'string', short: 't' },
  passWithNoTests: { type: 'boolean' },
  shard: { type: 'string' },
  trials: { type: 'string' },
  concurrency: { type: 'string' },
  output: { type: 'string', short: 'o' },
  label: { type: 'string', multiple: true },
  reporter: { type: 'string', multiple: true },
  'vitest-config': { type: 'string' },
  project: { type: 'string' },
  upload: { type: 'string' },
  baseline: { type: 'string' },
  resume: { type: 'string', multiple: true },
  parallel: { type: 'string' },
} as const

/** Parses and checks the arguments of `run`; throws USAGE errors. */
export function parseRunArgs(args: readonly string[]): RunArgs {
  const { values, positionals } = usageErrors(() =>
    parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true }),
  )
  const help = values.help === true
  if (!help && positionals.length === 0)
    throw new AgentEvalOpsError('USAGE', 'missing the config file(s) to run, e.g. configs/toy_smoke.yaml')
  if (values.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(values.shard)
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 1 || Number(m[1]) > Number(m[2]))
      throw new AgentEvalOpsError(
        'USAGE',
        `--shard must be <index>/<count> with 1 ≤ index ≤ count, got ${JSON.stringify(values.shard)}`,
      )
  }
  const parallel = positiveInt('--parallel', values.parallel)
  if (parallel !== undefined) {
    if (values.shard !== undefined)
      throw new AgentEvalOpsError(
        'USAGE',
        '--parallel runs every shard of the run itself: drop --shard (or drop --parallel to run one shard)',
      )
    if (values.baseline !== undefined || values.resume !== undefined)
      throw new AgentEvalOpsError(
        'USAGE',
        `--parallel does not take --${values.baseline !== undefined ? 'baseline' : 'resume'}: run without it, then compare or resume the merged bundle`,
      )
  }
  if (values.testNamePattern === '') throw new AgentEvalOpsError('USAGE', '-t needs a pattern')
  if (values.output === '') throw new AgentEvalOpsError('USAGE', '--output needs a folder')
  if (values.baseline === '')
    throw new AgentEvalOpsError('USAGE', '--baseline needs a bundle folder or "latest"')
  if (values.upload !== undefined) parseS3Url(values.upload)
  if (values.project !== undefined && values['vitest-config'] === undefined)
    throw new AgentEvalOpsError(
      'USAGE',
      '--project picks a project of your Vitest config: give --vitest-config <file> too',
    )
  const labels: Record<string, string> = {}
  for (const label of values.label ?? []) {
    const eq = label.indexOf('=')
    if (eq < 1)
      throw new AgentEvalOpsError('USAGE', `--label must be key=value, got ${JSON.stringify(label)}`)
    labels[label.slice(0, eq)] = label.slice(eq + 1)
  }
  return {
    help,
    configs: positionals,
    testNamePattern: values.testNamePattern,
    passWithNoTests: values.passWithNoTests === true,
    shard: values.shard,
    trials: positiveInt('--trials', values.trials),
    concurrency: positiveInt('--concurrency', values.concurrency),
    output: values.output,
    labels,
    reporters: values.reporter ?? [],
    vitestConfig: values['vitest-config'],
    project: values.project,
    upload: values.upload,
    baseline: values.baseline,
    resume: values.resume ?? [],
    parallel,
  }
}

function positiveInt(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1)
    throw new AgentEvalOpsError('USAGE', `${flag} must be a whole number ≥ 1, got ${JSON.stringify(raw)}`)
  return value
}

/**
 * The environment variables through which the run reaches the plugin (in this process) and the eval workers:
 * config mode's, with absolute paths. Only what the arguments set: a variable already exported stays in force.
 */
export function runEnvironment(args: RunArgs, cwd: string): Record<string, string> {
  const env: Record<string, string> = {
    [CONFIG_ENV.config]: args.configs.map((file) => resolve(cwd, file)).join(delimiter),
    [RUN_CLI_ENV]: '1',
  }
  if (args.trials !== undefined) env[CONFIG_ENV.trials] = String(args.trials)
  if (args.shard !== undefined) env[CONFIG_ENV.shard] = args.shard
  if (args.concurrency !== undefined) env[CONFIG_ENV.maxConcurrency] = String(args.concurrency)
  if (args.output !== undefined) env[CONFIG_ENV.runsDir] = resolve(cwd, args.output)
  if (Object.keys(args.labels).length > 0) env[CONFIG_ENV.labels] = JSON.stringify(args.labels)
  if (args.resume.length > 0)
    env[CONFIG_ENV.resume] = args.resume.map((dir) => resolve(cwd, dir)).join(delimiter)
  if (args.upload !== undefined) env[UPLOAD_ENV] = args.upload
  if (args.baseline !== undefined)
    env[CONFIG_ENV.baseline] = args.baseline === LATEST_BASELINE ? args.baseline : resolve(cwd, args.baseline)
  return env
}

/**
 * Options for createVitest (--shard is not among them: config mode has a single test file, so tasks are sharded,
 * through the environment). Without --vitest-config there is no config file: the root project is the evals
 * project and carries our plugin (the third createVitest argument). With it, the user's project must have
 * agentEvalOps() in its plugins.
 */
export function vitestOptions(args: RunArgs, cwd: string): { options: CliOptions; usePlugin: boolean } {
  const options: CliOptions = {
    root: cwd,
    watch: false,
    run: true,
    ...(args.testNamePattern === undefined ? {} : { testNamePattern: args.testNamePattern }),
    ...(args.passWithNoTests ? { passWithNoTests: true } : {}),
    // No --reporter: Vitest's own choice (default, plus github-actions on GitHub), our bundle reporter beside it.
    ...(args.reporters.length === 0 ? {} : { reporters: args.reporters }),
  }
  if (args.vitestConfig === undefined)
    return { options: { ...options, config: false, name: RUN_PROJECT }, usePlugin: true }
  return {
    options: { ...options, config: args.vitestConfig, project: args.project ?? RUN_PROJECT },
    usePlugin: false,
  }
}

export const runCommand: Command = {
  name: 'run',
  summary: 'Run the benchmarks of RunConfig files through Vitest and write a result bundle',
  usage: '<config.yaml…> [options]',
  async run(rawArgs, io) {
    const args = parseRunArgs(rawArgs)
    if (args.help) {
      io.out(help())
      return 0
    }
    const cwd = process.cwd()
    const env = runEnvironment(args, cwd)
    const baseline = env[CONFIG_ENV.baseline]
    if (
      baseline !== undefined &&
      baseline !== LATEST_BASELINE &&
      !existsSync(join(baseline, MANIFEST_FILE))
    ) {
      io.err(`agentevalops run: --baseline ${args.baseline}: no bundle there (no ${MANIFEST_FILE}).`)
      io.err('agentevalops run: pass a bundle folder (runs/<runId>) or "latest"; nothing was run.')
      return 2
    }

    // Every config is checked before Vitest starts: a broken one runs nothing and writes no bundle.
    let set: ConfigSet
    try {
      set = await loadConfigSet(cwd, args.configs, { ...process.env, ...env })
    } catch (e) {
      if (e instanceof ConfigError) {
        for (const finding of e.findings) io.err(formatFinding(finding))
        io.err(
          `agentevalops run: ${e.findings.length} problem${e.findings.length === 1 ? '' : 's'} in the config; nothing was run.`,
        )
        return 2
      }
      if (isAgentEvalOpsError(e, 'CONFIG_INVALID') || isAgentEvalOpsError(e, 'BUNDLE_EXISTS')) {
        io.err(`agentevalops run: ${e.message}`)
        io.err('agentevalops run: nothing was run.')
        return 2
      }
      throw e
    }

    if (args.parallel !== undefined)
      return runParallel({
        args,
        count: args.parallel,
        cwd,
        runsDir: resolve(cwd, set.runsDir),
        runId: set.runId,
        io,
        env: process.env,
      })

    const saved = new Map(Object.keys(env).map((name) => [name, process.env[name]]))
    Object.assign(process.env, env)
    try {
      return await runVitest(args, cwd, io)
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
  },
}

type Signal = 'SIGINT' | 'SIGTERM'
const SIGNALS: readonly Signal[] = ['SIGINT', 'SIGTERM']

/**
 * Starts Vitest through its Node API and runs once. The first SIGINT/SIGTERM cancels the run (in-flight trials are
 * aborted, the bundle is written with status interrupted, exit 130); a second one exits at once. Vitest's own
 * listeners, which exit hard on the first signal without any reporter hook, are removed.
 */
async function runVitest(args: RunArgs, cwd: string, io: CliIO): Promise<number> {
  const { createVitest } = await import('vitest/node')
  const { options, usePlugin } = vitestOptions(args, cwd)

  let vitest: Vitest | undefined
  let signals = 0
  const onSignal = (signal: Signal): void => {
    signals++
    if (signals === 1) {
      io.err(
        `\nagentevalops run: ${signal}: cancelling the run; finished trials go into the bundle. Press Ctrl+C again to exit at once.`,
      )
      void vitest?.cancelCurrentRun('keyboard-input').catch(() => undefined)
      return
    }
    io.err(`agentevalops run: ${signal} again: exiting without waiting for the run to end.`)
    // Closing stops the pool's workers; it gets a moment, not a say.
    const closing = vitest?.close().catch(() => undefined)
    void Promise.race([closing, new Promise((r) => setTimeout(r, 1_000).unref())]).finally(() =>
      process.exit(130),
    )
  }
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]))
  for (const s of SIGNALS) process.on(s, onSignal)

  const exitCodeBefore = process.exitCode
  process.exitCode = undefined
  try {
    vitest = await createVitest('test', options, usePlugin ? { plugins: [agentEvalOps()] } : {})
    for (const s of SIGNALS) {
      for (const listener of process.listeners(s)) {
        if (!before.get(s)!.has(listener) && listener !== onSignal)
          process.off(s, listener as (...a: unknown[]) => void)
      }
    }
    if (signals > 0) return 130
    const result = await vitest.start()
    if (signals > 0) return 130
    const failed =
      result.unhandledErrors.length > 0 ||
      result.testModules.some((m) => !m.ok()) ||
      (process.exitCode !== undefined && process.exitCode !== 0)
    return failed ? 1 : 0
  } catch (e) {
    if (signals > 0) return 130
    if (isAgentEvalOpsError(e)) throw e
    io.err(`agentevalops run: Vitest failed: ${errorMessage(e)}`)
    return 1
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal)
    await vitest?.close().catch(() => undefined)
    process.exitCode = exitCodeBefore
  }
}

function help(): string {
  return formatCommandHelp(runCommand, {
    notes: [
      'Runs the benchmark of each RunConfig as Vitest cases (one per task × trial) and writes one result bundle.\n' +
        'The same as AGENTEVALOPS_CONFIG=<configs> vitest run --project evals in a project with the\n' +
        'agentEvalOps() plugin. Every config is validated first: a config error runs nothing (exit 2).\n' +
        'Ctrl+C cancels the run and writes the bundle of the finished trials (status interrupted);\n' +
        'a second Ctrl+C exits at once.',
    ],
    options: [
      [
        '-t, --testNamePattern <pattern>',
        'Only the trials whose name matches (config > benchmark > task #trial); none: exit 1',
      ],
      ['--passWithNoTests', 'Exit 0 when no trial is left to run (as Vitest)'],
      ['--shard <index>/<count>', "Run one shard of the configs' tasks (every trial of a task in one shard)"],
      [
        '--parallel <n>',
        'Run n shards as processes on this machine and merge them into one bundle (logs in <runs>/.parallel/)',
      ],
      ['--trials <n>', "Trials per task, instead of the configs' trials"],
      ['--concurrency <n>', "Trials in flight, instead of the configs' concurrency"],
      ['-o, --output <dir>', "Runs folder for the bundle, instead of the config's storage.runs_dir"],
      ['--label <key=value>', "A label for metadata.json (repeatable; overrides the configs' labels)"],
      ['--reporter <name>', 'A Vitest reporter instead of the default (repeatable, e.g. junit, dot)'],
      ['--vitest-config <file>', 'Use this Vitest config instead of none (its project needs agentEvalOps())'],
      ['--project <name>', `The project of --vitest-config to run (default ${RUN_PROJECT})`],
      [
        '--resume <bundle>',
        'Take over the finished trials of an earlier bundle and run only the rest (repeatable)',
      ],
      [
        '--upload <s3://bucket/prefix>',
        'Upload the sealed bundle to <prefix>/<runId>/ (manifest last); a failed upload fails the run',
      ],
      [
        '--baseline <bundle|latest>',
        'Compare with this bundle (latest: the newest complete one of the same benchmarks); NO_GO fails',
      ],
    ],
    exitCodes: [
      [0, 'every case passed'],
      [1, 'a trial, a gate or the run failed, or -t matched no trial (no bundle written)'],
      [2, 'usage or config error: nothing was run, no bundle written'],
      [130, 'interrupted (Ctrl+C / SIGTERM): the bundle holds the finished trials'],
    ],
  })
}
