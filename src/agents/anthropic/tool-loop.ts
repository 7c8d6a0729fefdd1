import type Anthropic from '@anthropic-ai/sdk'
import {
  type AgentOutput,
  type EnvHandle,
  type JsonValue,
  type RunContext,
  type TaskSpec,
} from '../../core/index.ts'
import {
  callMessages,
  usageOf,
  type CallMessagesOptions,
  type MessagesRequest,
  type MessagesResponse,
} from '../../models/index.ts'
import type { McpToolset } from '../mcp/index.ts'
import { mcpHandler, mcpToolSpecs, mcpToolsOf } from '../mcp/runner-tools.ts'
import { emitAnswered, turnAttempts } from './model-turn.ts'
import type { RateLimiter } from './rate-limiter.ts'
import { findHandler, redactJson, runTool, toolParams, type ToolHandler } from './tools.ts'

/** Everything one trial's conversation needs, resolved by the runner. */
export interface LoopConfig {
  client: Anthropic
  model: string
  maxTokens: number
  temperature: number | null
  system: string
  tools: Readonly<Record<string, ToolHandler>> | undefined
  mcp: readonly McpToolset[]
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
}

/**
 * The tool-use conversation of one trial: ask the model, run the tools it asks for, send their results back,
 * until it answers without asking for a tool. Every step is a trace event emitted as it happens; an emit that
 * throws (a limit was crossed) ends the loop there, and the engine records why.
 */
export async function runToolLoop(
  config: LoopConfig,
  task: TaskSpec,
  env: EnvHandle,
  ctx: RunContext,
): Promise<AgentOutput> {
  const { redact } = config
  const own = toolParams(task.tools)
  const fromMcp = await mcpToolsOf(config.mcp, ctx, new Set(own.map((t) => t.name)))
  const tools = [...own, ...toolParams(mcpToolSpecs(fromMcp))]
  const offered = new Set(tools.map((t) => t.name))
  const handlerOf = (name: string): ToolHandler | undefined =>
    findHandler(name, config.tools, env) ?? mcpHandler(fromMcp.get(name))
  for (const name of offered) {
    if (!handlerOf(name))
      ctx.warn(`tool ${JSON.stringify(name)} is offered to the model but has no handler: its calls fail`)
  }
  const state: TrialState = { costWarned: false }
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: task.prompt }]

  for (let turn = 1; turn <= config.maxTurns; turn++) {
    const response = await callModel(config, ctx, state, turn, requestFor(config, task, tools, messages))
    const toolUses = response.content.filter(
      (block): block is Anthropic.ToolUseBlock => block.type === 'tool_use',
    )
    // The API refuses an empty assistant turn; an empty reply that is not a tool call ends the loop anyway.
    if (response.content.length > 0) messages.push({ role: 'assistant', content: response.content })

    if (toolUses.length === 0) {
      // A server-side tool paused a long turn: sending the conversation back as is lets the model go on.
      if (response.stop_reason === 'pause_turn' && response.content.length > 0) continue
      // end_turn, stop_sequence, and also max_tokens or refusal: what the model said is its answer, cut off
      // or not. Evaluators judge it; the stop reason is in the model_call event for them to see.
      const answer = redact(textOf(response))
      ctx.emit('agent.final_answer', { answer })
      return { finalAnswer: answer }
    }

    // One after another, in the model's order, so the trace reads as the conversation happened.
    const results: Anthropic.ToolResultBlockParam[] = []
    for (const use of toolUses) {
      const input = (use.input ?? null) as JsonValue
      const args = redactJson(input, redact)
      const server = offered.has(use.name) ? fromMcp.get(use.name)?.server : undefined
      const from = server === undefined ? {} : { server }
      ctx.emit('agent.tool_call', { tool: use.name, args, callId: use.id, ...from })
      // Only tools the task offered: a name the model made up is unknown even if some handler has it.
      const handler = offered.has(use.name) ? handlerOf(use.name) : undefined
      const outcome = await runTool(
        { id: use.id, name: use.name, input },
        handler,
        { task, env, signal: ctx.signal },
        redact,
      )
      ctx.emit('agent.tool_result', {
        tool: use.name,
        result: outcome.result,
        isError: outcome.isError,
        callId: use.id,
        ...from,
      })
      results.push(outcome.block)
    }
    messages.push({ role: 'user', content: results })
  }
  return {
    finalAnswer: null,
    error: `no final answer after ${config.maxTurns} model turns (the runner's maxTurns)`,
  }
}

function requestFor(
  config: LoopConfig,
  task: TaskSpec,
  tools: Anthropic.Tool[],
  messages: Anthropic.MessageParam[],
): MessagesRequest {
  return {
    model: config.model,
    max_tokens: config.maxTokens,
    system: config.system,
    // A snapshot: the request of each turn stays what was sent, whatever the loop appends afterwards.
    messages: messages.slice(),
    ...(tools.length > 0 ? { tools } : {}),
    ...(config.temperature === null ? {} : { temperature: config.temperature }),
  }
}

/** One model turn: its attempts as events (see model-turn.ts), the one that answered with its tokens and cost. */
async function callModel(
  config: LoopConfig,
  ctx: RunContext,
  state: TrialState,
  turn: number,
  request: MessagesRequest,
): Promise<MessagesResponse> {
  const attempts = turnAttempts(config, ctx, turn)
  const response = await callMessages(config.client, request, attempts.options)
  const answered = attempts.answered()
  emitAnswered(config, ctx, state, turn, answered, {
    usage: answered?.usage ?? usageOf(response.usage),
    stopReason: response.stop_reason,
    text: textOf(response),
  })
  return response
}

/** The reply's text blocks, joined as written: with citations, one paragraph comes as several blocks. */
function textOf(response: MessagesResponse): string {
  return response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('')
}
