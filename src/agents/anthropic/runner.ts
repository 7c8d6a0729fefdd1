import type Anthropic from '@anthropic-ai/sdk'
import {
  AgentEvalOpsError,
  sha256,
  type AgentOutput,
  type AgentRunner,
  type EnvHandle,
  type RunContext,
  type RunnerInfo,
  type TaskSpec,
} from '../../core/index.ts'
import { createAnthropicClient, redactSecrets, type CallMessagesOptions } from '../../models/index.ts'
import { sharedRateLimiter, type RateLimiter } from './rate-limiter.ts'
import { runToolLoop, type LoopConfig } from './tool-loop.ts'
import type { McpToolset } from '../mcp/index.ts'
import type { ToolHandler } from './tools.ts'

export const DEFAULT_AGENT_MAX_TOKENS = 4096
export const DEFAULT_AGENT_MAX_ATTEMPTS = 4
export const DEFAULT_AGENT_MAX_TURNS = 100
export const DEFAULT_AGENT_SYSTEM_PROMPT =
  'You are an agent completing a task. Use the tools you are given when they help. ' +
  'When you are done, reply with your final answer and no further tool calls.'

export interface AnthropicRunnerOptions {
  /** The model id, e.g. `claude-sonnet-4-6`; priced from the table in src/models (unknown → cost 0 and a warning). */
  model: string
  /** Per reply (default 4096). A reply cut off at this length still counts as the answer, as far as it got. */
  maxTokens?: number
  /** Default 0; null leaves it out of the request (for models that refuse it). */
  temperature?: number | null
  /** Default DEFAULT_AGENT_SYSTEM_PROMPT. A task's `metadata.system`, when a string, replaces it for that task. */
  system?: string
  /**
   * Handlers by tool name. The model is offered the task's `tools` (their specs); for each call the handler is
   * looked up here first, then in the env the benchmark's prepare() returned (`toolHandlers`, see ToolEnv), so
   * a benchmark can hand over tools bound to the trial's own workspace.
   */
  tools?: Record<string, ToolHandler>
  /**
   * MCP servers whose tools the model is offered besides the task's (see mcpTools()): their calls' events name the
   * server, and their list and results are recorded and replayed with the trial's model calls.
   */
  mcp?: readonly McpToolset[]
  /** Used as is (its own retries are switched off per request); otherwise made at the first run. */
  client?: Anthropic
  /** Default `ANTHROPIC_API_KEY`. Never written to an event, a record or an error. */
  apiKey?: string
  /** Default `ANTHROPIC_BASE_URL`, else the public API. */
  baseURL?: string
  /**
   * Keeps this worker process's requests to the endpoint and model under this many per minute, across every
   * concurrent trial and every runner made with the same endpoint and model (retries count). Off when unset.
   */
  requestsPerMinute?: number
  /** A limiter of your own instead of the shared one (e.g. one shared by several models of one account). */
  limiter?: RateLimiter
  /** HTTP attempts per model turn, the first included (default 4): 429, 529, 5xx and unreadable bodies are retried. */
  maxAttempts?: number
  /**
   * A backstop for trials run without a maxTurns limit (default 100): past it the runner gives up with an agent
   * error rather than talk forever. The trial's own limits, when set, are what normally end a run.
   */
  maxTurns?: number
  /** Per HTTP attempt; the SDK's default (10 min) otherwise. */
  timeoutMs?: number
  /** Backoff between attempts; tests shorten it. */
  retry?: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs' | 'sleep'>
  /** Default `anthropic:<model>`. */
  name?: string
}

interface Settings {
  name: string
  model: string
  maxTokens: number
  temperature: number | null
  system: string
  maxAttempts: number
  maxTurns: number
  timeoutMs: number | undefined
  requestsPerMinute: number | null
}

interface Connection {
  client: Anthropic
  limiter: RateLimiter | null
  redact: (text: string) => string
}

/**
 * An agent that is a Claude model in a tool-use loop over the Messages API (see tool-loop.ts for the loop). Each
 * HTTP attempt is an `agent.model_call` event with its tokens and list-price cost, so the engine's token, cost and
 * turn limits hold it, and its signal (wall time, cancel) aborts the request in flight.
 *
 * Failures of the harness are INFRA_FAILURE, never blamed on the agent: no API key, a 401/403, a model call that
 * keeps failing after its retries.
 */
export function anthropicRunner(options: AnthropicRunnerOptions): AgentRunner {
  const settings = resolveSettings(options)
  // Made at the first run, so defining a suite needs no API key until a trial actually runs.
  let connection: Connection | undefined

  return {
    runnerInfo: (): RunnerInfo => ({
      name: settings.name,
      kind: 'anthropic',
      config: {
        model: settings.model,
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        // The runner's own handlers; tools a benchmark hands over in its env belong to the benchmark.
        tools: Object.keys(options.tools ?? {}).sort(),
        ...(options.mcp?.length ? { mcp: options.mcp.map((m) => m.name) } : {}),
        // A task's metadata.system override is part of the task and of its checksum, not of the runner.
        systemPromptSha256: sha256(settings.system),
        requestsPerMinute: settings.requestsPerMinute,
        maxTurns: settings.maxTurns,
      },
    }),
    async run(task: TaskSpec, env: EnvHandle, ctx: RunContext): Promise<AgentOutput> {
      connection ??= await connect(options, settings)
      const system = typeof task.metadata.system === 'string' ? task.metadata.system : settings.system
      const config: LoopConfig = {
        client: connection.client,
        model: settings.model,
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        system,
        tools: options.tools,
        mcp: options.mcp ?? [],
        maxAttempts: settings.maxAttempts,
        maxTurns: settings.maxTurns,
        timeoutMs: settings.timeoutMs,
        retry: options.retry ?? {},
        limiter: connection.limiter,
        redact: connection.redact,
      }
      return runToolLoop(config, task, env, ctx)
    },
  }
}

async function connect(options: AnthropicRunnerOptions, settings: Settings): Promise<Connection> {
  const envKey = process.env.ANTHROPIC_API_KEY
  const client = options.client ?? (await createClient(options, settings.name, envKey))
  const secrets = [options.apiKey, envKey, client.apiKey, client.authToken]
  const rate = settings.requestsPerMinute
  let limiter: RateLimiter | null = options.limiter ?? null
  if (limiter && rate !== null) limiter.tighten(rate)
  else if (!limiter && rate !== null) limiter = sharedRateLimiter(client.baseURL, settings.model, rate)
  return { client, limiter, redact: (text) => redactSecrets(text, secrets) }
}

async function createClient(
  options: AnthropicRunnerOptions,
  name: string,
  envKey: string | undefined,
): Promise<Anthropic> {
  const apiKey = (options.apiKey ?? envKey)?.trim()
  if (!apiKey) {
    // The harness was not given what it needs: the trial is an infra failure, not the agent's.
    throw new AgentEvalOpsError('INFRA_FAILURE', `${name} has no Anthropic API key`, {
      hint: 'Set ANTHROPIC_API_KEY (or pass apiKey or client to anthropicRunner()).',
    })
  }
  const baseURL = options.baseURL ?? (process.env.ANTHROPIC_BASE_URL || undefined)
  return createAnthropicClient({ apiKey, baseURL })
}

function resolveSettings(options: AnthropicRunnerOptions): Settings {
  const model = typeof options.model === 'string' ? options.model.trim() : ''
  const label = model ? `anthropicRunner(${model})` : 'anthropicRunner'
  const invalid = (what: string): AgentEvalOpsError =>
    new AgentEvalOpsError('CONFIG_INVALID', `${label}: ${what}`)
  const int = (name: string, value: number, min: number): number => {
    if (!Number.isInteger(value) || value < min)
      throw invalid(`${name} must be an integer ≥ ${min}, got ${String(value)}`)
    return value
  }
  if (!model) throw invalid('model is required')
  const temperature = options.temperature === undefined ? 0 : options.temperature
  if (temperature !== null && !(temperature >= 0 && temperature <= 1))
    throw invalid(`temperature must be between 0 and 1, got ${String(temperature)}`)
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0))
    throw invalid(`timeoutMs must be > 0, got ${String(options.timeoutMs)}`)
  const system = options.system ?? DEFAULT_AGENT_SYSTEM_PROMPT
  if (typeof system !== 'string') throw invalid('system must be a string')
  for (const [tool, handler] of Object.entries(options.tools ?? {})) {
    if (typeof handler !== 'function')
      throw invalid(`the handler of tool ${JSON.stringify(tool)} is not a function`)
  }
  return {
    name: options.name ?? `anthropic:${model}`,
    model,
    maxTokens: int('maxTokens', options.maxTokens ?? DEFAULT_AGENT_MAX_TOKENS, 1),
    temperature,
    system,
    maxAttempts: int('maxAttempts', options.maxAttempts ?? DEFAULT_AGENT_MAX_ATTEMPTS, 1),
    maxTurns: int('maxTurns', options.maxTurns ?? DEFAULT_AGENT_MAX_TURNS, 1),
    timeoutMs: options.timeoutMs,
    requestsPerMinute:
      options.requestsPerMinute === undefined ? null : int('requestsPerMinute', options.requestsPerMinute, 1),
  }
}
