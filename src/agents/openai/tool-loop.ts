import type OpenAI from 'openai'
import {
  type AgentOutput,
  type EnvHandle,
  type JsonValue,
  type RunContext,
  type TaskSpec,
  type ToolSpec,
} from '../../core/index.ts'
import {
  callChatCompletions,
  type CallMessagesOptions,
  type ChatRequest,
  type ChatResponse,
  type TokenUsage,
} from '../../models/index.ts'
// The Anthropic runner's tool handling and rate limiter are provider-neutral: shared, not copied.
import { emitAnswered, turnAttempts } from '../anthropic/model-turn.ts'
import type { RateLimiter } from '../anthropic/rate-limiter.ts'
import { findHandler, redactJson, runTool, type ToolHandler, type ToolOutcome } from '../anthropic/tools.ts'
import type { McpToolset } from '../mcp/index.ts'
import { mcpHandler, mcpToolSpecs, mcpToolsOf } from '../mcp/runner-tools.ts'

/** Everything one trial's conversation needs, resolved by the runner. */
export interface LoopConfig {
  client: OpenAI
  model: string
  maxTokens: number | null
  temperature: number | null
  system: string
  tools: Readonly<Record<string, ToolHandler>> | undefined
  /** MCP servers whose tools are offered beside the task's (see mcpTools()). */
  mcp?: readonly McpToolset[] | undefined
  maxAttempts: number
  maxTurns: number
  timeoutMs: number | undefined
  retry: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs' | 'sleep'>
  limiter: RateLimiter | null
  redact: (text: string) => string
}

/** Per trial: what has been said once already. */
interface TrialState {
  costWarned: boolean
  usageWarned: boolean
}

type Message = OpenAI.ChatCompletionMessageParam
type WireToolCall = OpenAI.ChatCompletionMessageToolCall

/**
 * The Chat Completions tool loop of one trial, as the Anthropic runner's: ask the model, run the tools it asks
 * for, send their results back as `tool` messages, until it answers without a tool call. Every step is a trace
 * event emitted as it happens; an emit that throws (a limit was crossed) ends the loop there.
 */
export async function runChatToolLoop(
  config: LoopConfig,
  task: TaskSpec,
  env: EnvHandle,
  ctx: RunContext,
): Promise<AgentOutput> {
  const { redact } = config
  const own = chatTools(task.tools)
  const fromMcp = await mcpToolsOf(config.mcp ?? [], ctx, new Set(own.map((t) => t.function.name)))
  const tools = [...own, ...chatTools(mcpToolSpecs(fromMcp))]
  const offered = new Set(tools.map((t) => t.function.name))
  const handlerOf = (name: string): ToolHandler | undefined =>
    findHandler(name, config.tools, env) ?? mcpHandler(fromMcp.get(name))
  for (const name of offered) {
    if (!handlerOf(name))
      ctx.warn(`tool ${JSON.stringify(name)} is offered to the model but has no handler: its calls fail`)
  }
  const state: TrialState = { costWarned: false, usageWarned: false }
  const messages: Message[] = [
    { role: 'system', content: config.system },
    { role: 'user', content: task.prompt },
  ]

  for (let turn = 1; turn <= config.maxTurns; turn++) {
    const response = await callModel(config, ctx, state, turn, requestFor(config, tools, messages))
    const message = response.choices[0]!.message
    const calls = message.tool_calls ?? []
    if (calls.length === 0) {
      // stop, and also length or content_filter: what the model said is its answer, cut off or not; the finish
      // reason is in the model_call event for evaluators to see.
      const answer = redact(message.content ?? '')
      ctx.emit('agent.final_answer', { answer })
      return { finalAnswer: answer }
    }
    messages.push({ role: 'assistant', content: message.content ?? null, tool_calls: calls })

    // One after another, in the model's order, so the trace reads as the conversation happened.
    for (const call of calls) {
      const { name, rawArguments } = nameAndArguments(call)
      const input = parseArguments(rawArguments)
      const args = redactJson(input.ok ? input.value : rawArguments, redact)
      const server = offered.has(name) ? fromMcp.get(name)?.server : undefined
      const from = server === undefined ? {} : { server }
      ctx.emit('agent.tool_call', { tool: name, args, callId: call.id, ...from })
      const outcome: Pick<ToolOutcome, 'result' | 'isError'> = input.ok
        ? await runTool(
            { id: call.id, name, input: input.value },
            // Only tools the task offered: a name the model made up is unknown even if some handler has it.
            offered.has(name) ? handlerOf(name) : undefined,
            { task, env, signal: ctx.signal },
            redact,
          )
        : { result: redact(`the arguments of tool ${JSON.stringify(name)} are not JSON`), isError: true }
      ctx.emit('agent.tool_result', {
        tool: name,
        result: outcome.result,
        isError: outcome.isError,
        callId: call.id,
        ...from,
      })
      const content = typeof outcome.result === 'string' ? outcome.result : JSON.stringify(outcome.result)
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
  }
  return {
    finalAnswer: null,
    error: `no final answer after ${config.maxTurns} model turns (the runner's maxTurns)`,
  }
}

/** The task's tools as Chat Completions functions; a schema-less tool gets an object schema, as the API needs. */
export function chatTools(tools: readonly ToolSpec[] | undefined): OpenAI.ChatCompletionFunctionTool[] {
  return (tools ?? []).map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: { type: 'object', ...tool.inputSchema },
    },
  }))
}

function nameAndArguments(call: WireToolCall): { name: string; rawArguments: string } {
  if (call.type === 'function') return { name: call.function.name, rawArguments: call.function.arguments }
  return { name: call.custom.name, rawArguments: call.custom.input }
}

/** The API sends arguments JSON-encoded; an empty string is a call without arguments. */
function parseArguments(raw: string): { ok: true; value: JsonValue } | { ok: false } {
  if (raw.trim() === '') return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(raw) as JsonValue }
  } catch {
    return { ok: false }
  }
}

function requestFor(
  config: LoopConfig,
  tools: OpenAI.ChatCompletionFunctionTool[],
  messages: Message[],
): ChatRequest {
  return {
    model: config.model,
    // A snapshot: the request of each turn stays what was sent, whatever the loop appends afterwards.
    messages: messages.slice(),
    ...(tools.length > 0 ? { tools } : {}),
    ...(config.maxTokens === null ? {} : { max_completion_tokens: config.maxTokens }),
    ...(config.temperature === null ? {} : { temperature: config.temperature }),
  }
}

const NO_USAGE: TokenUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: null,
  cache_read_input_tokens: null,
}

/** One model turn, as the Anthropic runner's (see model-turn.ts): every attempt an event, usage and cost counted. */
async function callModel(
  config: LoopConfig,
  ctx: RunContext,
  state: TrialState,
  turn: number,
  request: ChatRequest,
): Promise<ChatResponse> {
  const attempts = turnAttempts(config, ctx, turn)
  const response = await callChatCompletions(config.client, request, attempts.options)
  const answered = attempts.answered()
  if (answered?.usage === undefined && !state.usageWarned) {
    state.usageWarned = true
    ctx.warn(`the server reported no token usage for model ${config.model}: tokens and cost recorded as 0`)
  }
  const choice = response.choices[0]!
  emitAnswered(config, ctx, state, turn, answered, {
    usage: answered?.usage ?? NO_USAGE,
    stopReason: choice.finish_reason,
    text: choice.message.content ?? '',
  })
  return response
}
