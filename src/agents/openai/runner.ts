import type OpenAI from 'openai'
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
import { createOpenAIClient, redactSecrets, type CallMessagesOptions } from '../../models/index.ts'
import {
  DEFAULT_AGENT_MAX_ATTEMPTS,
  DEFAULT_AGENT_MAX_TURNS,
  DEFAULT_AGENT_SYSTEM_PROMPT,
} from '../anthropic/runner.ts'
import { sharedRateLimiter, type RateLimiter } from '../anthropic/rate-limiter.ts'
import type { ToolHandler } from '../anthropic/tools.ts'
import { runChatToolLoop, type LoopConfig } from './tool-loop.ts'

export interface OpenAIRunnerOptions {
  /** The model id, e.g. `gpt-5-mini`; priced from the table in src/models (unknown → cost 0 and a warning). */
  model: string
  /**
   * Default `OPENAI_BASE_URL`, else the public API. Any OpenAI-compatible server: Azure OpenAI, vLLM, Ollama,
   * LiteLLM, an internal gateway (e.g. `http://localhost:11434/v1`).
   */
  baseURL?: string
  /** Default `OPENAI_API_KEY`. Never written to an event, a record or an error. */
  apiKey?: string
  /** Sent with every request (a gateway's auth or routing headers); their values are redacted like the key. */
  headers?: Record<string, string>
  /** Default DEFAULT_AGENT_SYSTEM_PROMPT. A task's `metadata.system`, when a string, replaces it for that task. */
  system?: string
  /** Handlers by tool name, looked up before the env's `toolHandlers`, exactly as in anthropicRunner(). */
  tools?: Record<string, ToolHandler>
  /** `max_completion_tokens` per reply; left out (the server's default) when unset. */
  maxTokens?: number
  /** Between 0 and 2; left out when unset, because reasoning models accept only their default. */
  temperature?: number
  /** Used as is (its own retries are switched off per request); otherwise made at the first run. */
  client?: OpenAI
  /** Per minute, per worker, shared by every runner of the same endpoint and model (retries count). */
  requestsPerMinute?: number
  /** A limiter of your own instead of the shared one. */
  limiter?: RateLimiter
  /** HTTP attempts per model turn, the first included (default 4): 429, 5xx and unreadable bodies are retried. */
  maxAttempts?: number
  /** A backstop for trials without a maxTurns limit (default 100): past it the run ends with an agent error. */
  maxTurns?: number
  /** Per HTTP attempt; the SDK's default (10 min) otherwise. */
  timeoutMs?: number
  /** Backoff between attempts; tests shorten it. */
  retry?: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs' | 'sleep'>
  /** Default `openai:<model>`. */
  name?: string
}

interface Settings {
  name: string
  model: string
  maxTokens: number | null
  temperature: number | null
  system: string
  maxAttempts: number
  maxTurns: number
  timeoutMs: number | undefined
  requestsPerMinute: number | null
}

interface Connection {
  client: OpenAI
  limiter: RateLimiter | null
  redact: (text: string) => string
}

/**
 * An agent that is a model behind the OpenAI Chat Completions API (or a server that copies it) in a tool-use loop
 * (see tool-loop.ts). Each HTTP attempt is an `agent.model_call` event with its tokens and list-price cost, so
 * the engine's token, cost and turn limits hold it, and its signal aborts the request in flight. Model calls go
 * through the trial's ModelCallGate, so they are recorded and replayed like the Anthropic runner's.
 *
 * Failures of the harness are INFRA_FAILURE, never blamed on the agent: no API key, a 401/403, a model call that
 * keeps failing after its retries, a body that is not a completion.
 */
export function openaiRunner(options: OpenAIRunnerOptions): AgentRunner {
  const settings = resolveSettings(options)
  // Made at the first run, so defining a suite needs no API key until a trial actually runs.
  let connection: Connection | undefined

  return {
    runnerInfo: (): RunnerInfo => ({
      name: settings.name,
      kind: 'openai',
      config: {
        model: settings.model,
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        tools: Object.keys(options.tools ?? {}).sort(),
        systemPromptSha256: sha256(settings.system),
        // Names only: header values may be credentials.
        headers: Object.keys(options.headers ?? {}).sort(),
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
        maxAttempts: settings.maxAttempts,
        maxTurns: settings.maxTurns,
        timeoutMs: settings.timeoutMs,
        retry: options.retry ?? {},
        limiter: connection.limiter,
        redact: connection.redact,
      }
      return runChatToolLoop(config, task, env, ctx)
    },
  }
}

async function connect(options: OpenAIRunnerOptions, settings: Settings): Promise<Connection> {
  const envKey = process.env.OPENAI_API_KEY
  const client = options.client ?? (await createClient(options, settings.name, envKey))
  const secrets = [options.apiKey, envKey, client.apiKey, ...Object.values(options.headers ?? {})]
  const rate = settings.requestsPerMinute
  let limiter: RateLimiter | null = options.limiter ?? null
  if (limiter && rate !== null) limiter.tighten(rate)
  else if (!limiter && rate !== null) limiter = sharedRateLimiter(client.baseURL, settings.model, rate)
  return { client, limiter, redact: (text) => redactSecrets(text, secrets) }
}

async function createClient(
  options: OpenAIRunnerOptions,
  name: string,
  envKey: string | undefined,
): Promise<OpenAI> {
  const apiKey = (options.apiKey ?? envKey)?.trim()
  if (!apiKey) {
    throw new AgentEvalOpsError('INFRA_FAILURE', `${name} has no OpenAI API key`, {
      hint:
        'Set OPENAI_API_KEY (or pass apiKey or client to openaiRunner()); a local server that needs no key ' +
        'takes any placeholder, e.g. apiKey: "none".',
    })
  }
  const baseURL = options.baseURL ?? (process.env.OPENAI_BASE_URL || undefined)
  return createOpenAIClient({ apiKey, baseURL, headers: options.headers })
}

function resolveSettings(options: OpenAIRunnerOptions): Settings {
  const model = typeof options.model === 'string' ? options.model.trim() : ''
  const label = model ? `openaiRunner(${model})` : 'openaiRunner'
  const invalid = (what: string): AgentEvalOpsError =>
    new AgentEvalOpsError('CONFIG_INVALID', `${label}: ${what}`)
  const int = (name: string, value: number, min: number): number => {
    if (!Number.isInteger(value) || value < min)
      throw invalid(`${name} must be an integer ≥ ${min}, got ${String(value)}`)
    return value
  }
  if (!model) throw invalid('model is required')
  const temperature = options.temperature ?? null
  if (temperature !== null && !(temperature >= 0 && temperature <= 2))
    throw invalid(`temperature must be between 0 and 2, got ${String(temperature)}`)
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0))
    throw invalid(`timeoutMs must be > 0, got ${String(options.timeoutMs)}`)
  const system = options.system ?? DEFAULT_AGENT_SYSTEM_PROMPT
  if (typeof system !== 'string') throw invalid('system must be a string')
  for (const [tool, handler] of Object.entries(options.tools ?? {})) {
    if (typeof handler !== 'function')
      throw invalid(`the handler of tool ${JSON.stringify(tool)} is not a function`)
  }
  for (const [header, value] of Object.entries(options.headers ?? {})) {
    if (typeof value !== 'string') throw invalid(`header ${JSON.stringify(header)} must be a string`)
  }
  return {
    name: options.name ?? `openai:${model}`,
    model,
    maxTokens: options.maxTokens === undefined ? null : int('maxTokens', options.maxTokens, 1),
    temperature,
    system,
    maxAttempts: int('maxAttempts', options.maxAttempts ?? DEFAULT_AGENT_MAX_ATTEMPTS, 1),
    maxTurns: int('maxTurns', options.maxTurns ?? DEFAULT_AGENT_MAX_TURNS, 1),
    timeoutMs: options.timeoutMs,
    requestsPerMinute:
      options.requestsPerMinute === undefined ? null : int('requestsPerMinute', options.requestsPerMinute, 1),
  }
}
