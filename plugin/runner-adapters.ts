// The runners a RunConfig can run a real agent with: `anthropic` and `openai` (a model in a tool loop; `openai` is
// any OpenAI-compatible chat completions server), `command` (a CLI agent), `callable` (a function of the user's,
// from a module beside the config). Options are snake_case as in YAML and strict, so a typo is a located config
// error with "did you mean". No credential is written in a config: keys come from the provider's environment
// variable, or from a `${NAME}` reference expanded right before the factory runs.
import { resolve } from 'node:path'
import * as z from 'zod'
import {
  anthropicRunner,
  callableRunner,
  commandRunner,
  COMMAND_FORMATS,
  type CallableAgent,
  type ToolHandler,
  OpenAIRunnerConfig,
  openaiRunnerFromConfig,
} from '../src/agents/index.ts'
import type { AdapterContext, Registry } from '../src/config/index.ts'
import { withOptions } from '../src/config/index.ts'
import {
  AgentEvalOpsError,
  JsonValue,
  type AgentRunner,
  type JsonObject,
  type RunnerInfo,
} from '../src/core/index.ts'
import { importExport, moduleRef, type ModuleRef } from './module-export.ts'

const text = z.string().min(1)
const positiveInt = z.number().int().positive()

/** Tool handlers a model runner calls, from a module: `tools: { module: ./tools.ts, export: tools }`. */
const ToolsModule = z.strictObject({ module: text, export: text.default('tools') })

const AnthropicOptions = z.strictObject({
  model: text,
  /** Default ANTHROPIC_BASE_URL, else the public API. */
  base_url: z.string().url().optional(),
  system: z.string().optional(),
  max_tokens: positiveInt.optional(),
  temperature: z.number().min(0).max(1).nullable().optional(),
  tools: ToolsModule.optional(),
  requests_per_minute: positiveInt.optional(),
  max_attempts: positiveInt.optional(),
  max_turns: positiveInt.optional(),
  timeout_ms: positiveInt.optional(),
  name: text.optional(),
})

const ENV_NAME = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a variable name')

const CommandOptions = z.strictObject({
  argv: z.array(z.string()).min(1),
  format: z.enum(COMMAND_FORMATS).optional(),
  cwd: text.optional(),
  /** Extra variables; write values as ${NAME} references, a config holds no secrets. */
  env: z.record(ENV_NAME, z.string()).optional(),
  /** The harness variables passed through (replaces the default PATH, HOME, LANG, TMPDIR, TERM). */
  pass_env: z.array(ENV_NAME).optional(),
  stdin: z.enum(['prompt', 'none']).optional(),
  name: text.optional(),
  artifacts_dir: text.optional(),
  kill_grace_ms: z.number().int().nonnegative().optional(),
  max_output_bytes: positiveInt.optional(),
})

const CallableOptions = z.strictObject({
  /** Relative to the config's folder; TypeScript is fine (loaded through Vite). */
  module: text,
  /** A function `(input, ctx) => answer`, or a runner made with callableRunner(). Default `default`. */
  export: text.default('default'),
  name: text.optional(),
  /** The settings that shape the agent's results, for runnerInfo (never credentials). */
  config: z.record(z.string(), JsonValue).optional(),
})

function baseDirOf(context: AdapterContext | undefined): string {
  return context?.baseDir ?? process.cwd()
}

/**
 * A runner built at its first trial: modules are imported then, inside the worker, so planning a run imports
 * nothing. Every trial shares the one build (and its failure, which each trial then reports).
 */
function lazyRunner(info: RunnerInfo, build: () => Promise<AgentRunner>): AgentRunner {
  let built: Promise<AgentRunner> | undefined
  return {
    runnerInfo: () => info,
    async run(task, env, ctx) {
      built ??= build()
      return (await built).run(task, env, ctx)
    },
  }
}

async function loadTools(ref: ModuleRef, what: string): Promise<Record<string, ToolHandler>> {
  const tools = await importExport(ref, what)
  const bad =
    tools === null || typeof tools !== 'object'
      ? 'it is not a mapping of tool names to handlers'
      : Object.entries(tools).find(([, h]) => typeof h !== 'function')?.[0]
  if (bad !== undefined) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${what}: export ${ref.shown} ${bad.startsWith('it ') ? bad : `has a tool ${JSON.stringify(bad)} that is not a function`}.`,
      { hint: 'Export an object of handlers: export const tools = { get_weather: async (input) => … }.' },
    )
  }
  return tools as Record<string, ToolHandler>
}

function isRunner(value: unknown): value is AgentRunner {
  const v = value as Partial<AgentRunner> | null
  return (
    typeof v === 'object' && v !== null && typeof v.run === 'function' && typeof v.runnerInfo === 'function'
  )
}

/** Registers `anthropic`, `openai`, `command` and `callable`. */
export function registerRunnerAdapters(registry: Registry): void {
  registry.register(
    'runner',
    'anthropic',
    withOptions('runner', 'anthropic', AnthropicOptions, (o, context) => {
      const settings = {
        model: o.model,
        ...(o.base_url === undefined ? {} : { baseURL: o.base_url }),
        ...(o.system === undefined ? {} : { system: o.system }),
        ...(o.max_tokens === undefined ? {} : { maxTokens: o.max_tokens }),
        ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
        ...(o.requests_per_minute === undefined ? {} : { requestsPerMinute: o.requests_per_minute }),
        ...(o.max_attempts === undefined ? {} : { maxAttempts: o.max_attempts }),
        ...(o.max_turns === undefined ? {} : { maxTurns: o.max_turns }),
        ...(o.timeout_ms === undefined ? {} : { timeoutMs: o.timeout_ms }),
        ...(o.name === undefined ? {} : { name: o.name }),
      }
      // Built now without tools for its info (and to check the settings); with them at the first trial.
      const bare = anthropicRunner(settings)
      if (o.tools === undefined) return bare
      const what = 'runner "anthropic" tools'
      const ref = moduleRef(o.tools.module, o.tools.export, baseDirOf(context), what)
      const info = bare.runnerInfo()
      return lazyRunner({ ...info, config: { ...info.config, tools: ref.shown } }, async () =>
        anthropicRunner({ ...settings, tools: await loadTools(ref, what) }),
      )
    }),
  )

  registry.register(
    'runner',
    'openai',
    withOptions(
      'runner',
      'openai',
      OpenAIRunnerConfig.extend({ tools: ToolsModule.optional() }),
      ({ tools, ...options }, context) => {
        const where = 'agent.options'
        const bare = openaiRunnerFromConfig(options, where)
        if (tools === undefined) return bare
        const what = 'runner "openai" tools'
        const ref = moduleRef(tools.module, tools.export, baseDirOf(context), what)
        const info = bare.runnerInfo()
        return lazyRunner({ ...info, config: { ...info.config, tools: ref.shown } }, async () =>
          openaiRunnerFromConfig(options, where, { tools: await loadTools(ref, what) }),
        )
      },
    ),
  )

  registry.register(
    'runner',
    'command',
    withOptions('runner', 'command', CommandOptions, (o, context) =>
      commandRunner({
        argv: o.argv,
        ...(o.format === undefined ? {} : { format: o.format }),
        ...(o.cwd === undefined ? {} : { cwd: besideConfig(o.cwd, context) }),
        ...(o.env === undefined ? {} : { env: o.env }),
        ...(o.pass_env === undefined ? {} : { passEnv: o.pass_env }),
        ...(o.stdin === undefined ? {} : { stdin: o.stdin }),
        ...(o.name === undefined ? {} : { name: o.name }),
        ...(o.artifacts_dir === undefined ? {} : { artifactsDir: besideConfig(o.artifacts_dir, context) }),
        ...(o.kill_grace_ms === undefined ? {} : { killGraceMs: o.kill_grace_ms }),
        ...(o.max_output_bytes === undefined ? {} : { maxOutputBytes: o.max_output_bytes }),
      }),
    ),
  )

  registry.register(
    'runner',
    'callable',
    withOptions('runner', 'callable', CallableOptions, (o, context) => {
      const what = 'runner "callable"'
      const ref = moduleRef(o.module, o.export, baseDirOf(context), what)
      const config: JsonObject = { module: ref.shown, ...(o.config ?? {}) }
      const name = o.name ?? `callable:${o.export === 'default' ? o.module : o.export}`
      return lazyRunner({ name, kind: 'callable', config }, async () => {
        const value = await importExport(ref, what)
        // A runner the module built itself (callableRunner(fn, …)) runs as it is; its info is the config's.
        if (isRunner(value)) return value
        if (typeof value !== 'function') {
          throw new AgentEvalOpsError(
            'CONFIG_INVALID',
            `${what}: export ${ref.shown} is ${value === null ? 'null' : typeof value}, not an agent function.`,
            { hint: 'Export async (input, ctx) => answer, or a runner made with callableRunner().' },
          )
        }
        return callableRunner(value as CallableAgent, { name, config })
      })
    }),
  )
}

/** A folder option: relative to the config's folder, like module paths. */
function besideConfig(path: string, context: AdapterContext | undefined): string {
  return resolve(baseDirOf(context), path)
}
