import type {
  AgentOutput,
  EnvHandle,
  JsonObject,
  JsonValue,
  ResourceLimits,
  TaskSpec,
  UsageSoFar,
} from '../../core/index.ts'

/** What a wrapped agent is called with, once per trial. */
export interface CallableInput {
  task: TaskSpec
  /** The task's prompt (`task.prompt`), the one thing most agents need. */
  prompt: string
  /** The task's structured input (`task.input`), when the benchmark gives one. */
  input: JsonValue | undefined
  /** What the benchmark prepared for the trial (e.g. `env.workdir`). */
  env: EnvHandle
}

/** The long form of an agent's result: it reaches the engine as it is. */
export type CallableOutput = AgentOutput

/**
 * What a wrapped agent returns: a string is its final answer; an object says more (success, artifacts, an error of
 * its own); null or nothing means "no answer of my own" (the last `ctx.answer()`, if any, stands).
 */
export type CallableResult = string | CallableOutput | null | undefined | void

export type CallableAgent = (
  input: CallableInput,
  ctx: CallableContext,
) => CallableResult | Promise<CallableResult>

/** Budget left per limit: undefined when the limit is not set. */
export interface RemainingBudget {
  tokens: number | undefined
  costUsd: number | undefined
  turns: number | undefined
  seconds: number | undefined
}

export interface CallableUsage extends UsageSoFar {
  /**
   * What is left before each limit, never below 0. A limit is crossed by going past it, so 0 left still allows a
   * step that spends nothing; the next token, cent or turn ends the trial.
   */
  remaining: RemainingBudget
}

/** One model call as the agent saw it. Only `model` is required: record what you know. */
export interface ModelCallInfo {
  model: string
  /** Uncached input tokens. Cache reads and writes are counted apart, as Anthropic reports them. */
  inputTokens?: number
  outputTokens?: number
  /**
   * Prompt-cache reads (Anthropic `cache_read_input_tokens`). OpenAI's `prompt_tokens` include its
   * `cached_tokens`: pass `prompt_tokens - cached_tokens` as `inputTokens` so nothing is counted twice.
   */
  cacheReadTokens?: number
  /** Prompt-cache writes (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens?: number
  text?: string
  stopReason?: string
  /** What the call cost, when you know it (a provider's bill, a price the table lacks); else it is looked up. */
  costUsd?: number
  /** Which try this was, when the agent retries its calls itself. */
  attempt?: number
  /**
   * The request you send (model, system, messages, tools, parameters — plain JSON). Given to the wrapping form,
   * it makes the call recordable: the wrapped function's report is recorded under it and, on replay
   * (AGENTEVALOPS_RECORD), returned without calling the function. The report's `result` must then be JSON.
   */
  request?: JsonObject
}

/** What the function wrapped by `ctx.modelCall(info, run)` returns: its result plus whatever it learnt. */
export type ModelCallReport<T> = Partial<ModelCallInfo> & { result: T }

export interface ToolCallOptions {
  /** The id the model gave the call (e.g. a `tool_use` id); otherwise one is generated. */
  callId?: string
}

/**
 * The trace-writing side of a wrapped agent. Every method records through the engine, which enforces the trial's
 * limits as the events arrive: when one is crossed (or the trial is cancelled, or its wall time is up) the method
 * throws an AgentEvalOpsError with code LIMIT_REACHED (RUN_ABORTED on cancel). Let it propagate: the trial ends
 * with that limit whatever the agent does next, and every later call throws the same error again.
 *
 * Its members are plain functions (no `this`): they may be destructured or handed to an SDK's callbacks.
 */
export interface CallableContext {
  /** Aborted at a limit or on cancel: pass it to fetch, SDK calls and anything else that can wait. */
  readonly signal: AbortSignal
  readonly limits: ResourceLimits
  /** The budget spent so far (as the engine counts it) and what is left of each limit. */
  readonly usage: () => CallableUsage
  /**
   * Runs one tool call between an `agent.tool_call` and an `agent.tool_result` event that share a callId, and
   * resolves with what `run` returned. Args and result are recorded as JSON (what is not JSON is converted and the
   * conversion noted in the event). When `run` throws, the result is recorded with `isError: true` and the error's
   * message, and the error is rethrown for the agent to handle as it would without the harness. If the trial is
   * stopped while `run` is pending, the call rejects at once with the stop reason.
   */
  readonly toolCall: <A, T>(
    name: string,
    args: A,
    run: (args: A) => T | Promise<T>,
    options?: ToolCallOptions,
  ) => Promise<Awaited<T>>
  readonly modelCall: ModelCall
  /**
   * A `fetch` to give your model SDK (`createOpenAI({ fetch: ctx.fetch })`, `new OpenAI({ fetch: ctx.fetch })`,
   * `new Anthropic({ fetch: ctx.fetch })`): each request whose JSON body names a `model` is one model call,
   * keyed by that body, so it is recorded and replayed (AGENTEVALOPS_RECORD) with no key and no network, and
   * recorded as an `agent.model_call` event with the usage its reply reports (Chat Completions, Responses and
   * Messages shapes, JSON or streamed). Other requests go to the network as they are. Report no model calls of
   * your own beside it: each would be counted twice.
   */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>
  /** An `agent.plan` event. Returns its step. */
  readonly plan: (text: string) => number
  /** An `agent.observation` event. Returns its step. */
  readonly observe: (text: string) => number
  /**
   * An `agent.final_answer` event. Returns its step. An answer the agent returns is recorded the same way, unless
   * it is the one last given here (an answer is not recorded twice).
   */
  readonly answer: (text: string) => number
  /** A line in the trial's warnings that does not fail it. */
  readonly warn: (message: string) => void
}

/** `ctx.modelCall`, in its two forms. */
export interface ModelCall {
  /**
   * Records a model call that already happened, with its tokens and cost (from `costUsd`, else the price table,
   * else 0 with a warning). Returns the event's step. Such a call cannot be recorded: where recordings are
   * required (AGENTEVALOPS_RECORD=record or replay, or auto in CI) it throws RECORDING_UNKEYED; in plain auto it
   * warns once per trial. Use `ctx.fetch` or the wrapping form with `request` instead.
   */
  (info: ModelCallInfo): number
  /**
   * Makes a model call through `run` and records it once it settles: what `run` reports overrides `info`, and
   * the call resolves with `result`. A call that throws is recorded with `status: 'error'` (not a turn) and the
   * error is rethrown. Without `info.request` it cannot be recorded, and is treated as the form above is.
   */
  <T>(info: ModelCallInfo, run: () => ModelCallReport<T> | Promise<ModelCallReport<T>>): Promise<T>
}

export interface CallableRunnerOptions {
  /** The runner's name in records and reports; default: the function's name, else "callable". */
  name?: string
  /** The settings that shape the agent's results (model, temperature, prompt version…). Never credentials. */
  config?: JsonObject
}
