import type { JsonObject, JsonValue } from '../../../core/index.ts'
import type { TokenUsage } from '../../../models/index.ts'
import {
  definedOnly,
  isRecord,
  priceCall,
  stringOr,
  tokenCount,
  totalTokens,
  type FormatContext,
  type FormatResult,
  type LineFormat,
} from './types.ts'

type Usage = Required<{ [K in keyof TokenUsage]: number }>

/** One assistant message, gathered from the lines that carry its content blocks. */
interface PendingMessage {
  id: string | undefined
  model: string | undefined
  stopReason: string | undefined
  parent: string | undefined
  usage: Usage
  texts: string[]
  thinking: string[]
  toolUses: ToolUse[]
  /** Results of server-side tools (web search), which arrive inside the assistant message itself. */
  toolResults: JsonObject[]
}

interface ToolUse {
  id: string | undefined
  name: string
  input: JsonValue
}

/** Claude Code marks the messages it makes up itself (an API error, an interrupted request) with this model. */
const SYNTHETIC_MODEL = '<synthetic>'

/** Lines Claude Code writes that carry nothing for the trace (partial-message deltas are repeated whole later). */
const IGNORED_TYPES = new Set(['stream_event'])

const COST_NOTE = " (the agent's own total_cost_usd, when reported, is added at the end)"

/**
 * Claude Code's `--output-format stream-json --verbose` lines (docs/command-runner.md has the mapping).
 *
 * Claude Code writes one `assistant` line per content block, each repeating the message id and usage; only the
 * last may carry the final output count. The lines of one message are therefore merged, and its model call is
 * emitted once: when its first tool_use arrives (tool blocks come last), or when a line of any other message
 * does. Usage that still grows after that is added as a cost.tick, so nothing is counted twice or lost.
 */
export function streamJsonFormat({ ctx, notes }: FormatContext): LineFormat {
  let pending: PendingMessage | null = null
  /** What was counted for each message already emitted, so later lines of it add only their growth. */
  const counted = new Map<string, { model: string | undefined; usage: Usage }>()
  const toolsById = new Map<string, string>()
  let pricedCostUsd = 0
  let result: FormatResult = { finalAnswer: null }

  const skip = (what: string): void =>
    notes.count(`stream-json:${what}`, (n) => `skipped ${n} stream-json line(s): ${what}`)

  const emitToolCall = (use: ToolUse, parent: string | undefined): void => {
    if (use.id !== undefined) toolsById.set(use.id, use.name)
    ctx.emit(
      'agent.tool_call',
      definedOnly({ tool: use.name, args: use.input, callId: use.id, parentToolUseId: parent }),
    )
  }

  const emitToolResult = (block: JsonObject, parent: string | undefined): void => {
    const callId = stringOr(block.tool_use_id, undefined)
    const known = callId === undefined ? undefined : toolsById.get(callId)
    if (known === undefined)
      notes.count(
        'stream-json:orphan-result',
        (n) => `${n} tool result(s) answer no tool_use seen before: tool "unknown"`,
      )
    const isError = typeof block.is_error === 'boolean' ? block.is_error : undefined
    ctx.emit(
      'agent.tool_result',
      definedOnly({
        tool: known ?? 'unknown',
        result: toolResultContent(block.content),
        isError,
        callId,
        parentToolUseId: parent,
      }),
    )
  }

  const flush = (): void => {
    const message = pending
    if (message === null) return
    // Cleared first: if an emit below throws (a limit), the message must not be emitted again.
    pending = null
    const text = message.texts.length > 0 ? message.texts.join('\n') : undefined
    if (message.id !== undefined) counted.set(message.id, { model: message.model, usage: message.usage })
    if (message.model === SYNTHETIC_MODEL) {
      // Not a model call but Claude Code reporting one that failed: traced as a failed attempt, not a turn.
      ctx.emit(
        'agent.model_call',
        definedOnly({
          model: message.model,
          status: 'error' as const,
          error: text ?? 'synthetic message',
          messageId: message.id,
        }),
        { tokens: 0, costUsd: 0 },
      )
    } else {
      const costUsd = priceCall(message.model, message.usage, notes, COST_NOTE)
      pricedCostUsd += costUsd
      ctx.emit(
        'agent.model_call',
        definedOnly({
          model: message.model,
          inputTokens: message.usage.input_tokens,
          outputTokens: message.usage.output_tokens,
          cacheCreationInputTokens: message.usage.cache_creation_input_tokens || undefined,
          cacheReadInputTokens: message.usage.cache_read_input_tokens || undefined,
          stopReason: message.stopReason,
          text,
          messageId: message.id,
          parentToolUseId: message.parent,
        }),
        { tokens: totalTokens(message.usage), costUsd },
      )
    }
    for (const thought of message.thinking) ctx.emit('agent.plan', { text: thought, source: 'thinking' })
    for (const use of message.toolUses) emitToolCall(use, message.parent)
    for (const block of message.toolResults) emitToolResult(block, message.parent)
  }

  /** A line of a message whose model call is already in the trace. */
  const lateLine = (id: string, message: JsonObject, parent: string | undefined): void => {
    const before = counted.get(id)
    if (before) {
      const now = maxUsage(before.usage, usageOf(message.usage))
      const growth = subtractUsage(now, before.usage)
      before.usage = now
      if (totalTokens(growth) > 0) {
        const costUsd = priceCall(before.model, growth, notes, COST_NOTE)
        pricedCostUsd += costUsd
        ctx.emit(
          'cost.tick',
          { note: `later usage of message ${id}`, messageId: id },
          { tokens: totalTokens(growth), costUsd },
        )
      }
    }
    for (const block of contentBlocks(message)) {
      if (block.type === 'text' && typeof block.text === 'string')
        ctx.emit('agent.plan', { text: block.text, source: 'text' })
      else if (block.type === 'thinking' && typeof block.thinking === 'string')
        ctx.emit('agent.plan', { text: block.thinking, source: 'thinking' })
      else {
        const use = toolUseOf(block)
        if (use) emitToolCall(use, parent)
        else if (isToolResultBlock(block)) emitToolResult(block, parent)
      }
    }
  }

  const assistant = (line: JsonObject): void => {
    const message = line.message
    if (!isRecord(message)) return skip('an "assistant" line without a message object')
    const id = stringOr(message.id, undefined)
    const parent = stringOr(line.parent_tool_use_id, undefined)
    if (pending !== null && (id === undefined || pending.id !== id)) flush()
    if (id !== undefined && counted.has(id)) return lateLine(id, message, parent)
    const into: PendingMessage = (pending ??= {
      id,
      model: undefined,
      stopReason: undefined,
      parent,
      usage: usageOf(undefined),
      texts: [],
      thinking: [],
      toolUses: [],
      toolResults: [],
    })
    into.model = stringOr(message.model, into.model)
    into.stopReason = stringOr(message.stop_reason, into.stopReason)
    into.usage = maxUsage(into.usage, usageOf(message.usage))
    let toolUse = false
    for (const block of contentBlocks(message)) {
      if (block.type === 'text' && typeof block.text === 'string') into.texts.push(block.text)
      else if (block.type === 'thinking' && typeof block.thinking === 'string')
        into.thinking.push(block.thinking)
      else if (isToolResultBlock(block)) into.toolResults.push(block)
      else {
        const use = toolUseOf(block)
        if (use) {
          into.toolUses.push(use)
          toolUse = true
        }
      }
    }
    // Tool blocks end a message's content: the call is complete enough to trace now, before the tool runs.
    if (toolUse) flush()
  }

  const user = (line: JsonObject): void => {
    flush()
    const message = line.message
    if (!isRecord(message)) return skip('a "user" line without a message object')
    const parent = stringOr(line.parent_tool_use_id, undefined)
    // Plain user text (the prompt, a replayed message) is not the agent's doing: only tool results are traced.
    for (const block of contentBlocks(message)) if (isToolResultBlock(block)) emitToolResult(block, parent)
  }

  const system = (line: JsonObject): void => {
    flush()
    if (line.subtype !== 'init') return
    const model = stringOr(line.model, undefined)
    const tools = Array.isArray(line.tools) ? line.tools.filter((t) => typeof t === 'string') : undefined
    const permissionMode = stringOr(line.permissionMode, undefined)
    const facts = [
      model && `model ${model}`,
      tools && `${tools.length} tool(s)`,
      permissionMode && `permission mode ${permissionMode}`,
    ].filter(Boolean)
    ctx.emit(
      'agent.observation',
      definedOnly({
        text: `session started${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`,
        source: 'system.init',
        model,
        sessionId: stringOr(line.session_id, undefined),
        tools,
        permissionMode,
        version: stringOr(line.claude_code_version, undefined),
      }),
    )
  }

  const finalResult = (line: JsonObject): void => {
    flush()
    const reported = line.total_cost_usd
    if (typeof reported === 'number' && Number.isFinite(reported) && reported >= 0) {
      const missing = Math.round((reported - pricedCostUsd) * 1e9) / 1e9
      if (missing > 0) {
        // The agent's own bill includes what the price table could not price (unknown models, subagents' models).
        pricedCostUsd += missing
        ctx.emit(
          'cost.tick',
          { note: "the agent's total_cost_usd beyond the priced model calls", reportedCostUsd: reported },
          { costUsd: missing },
        )
      } else if (pricedCostUsd - reported > Math.max(1e-6, reported * 0.01)) {
        notes.once(
          'stream-json:cost-below',
          `the agent reported total_cost_usd $${reported}, less than the $${round9(pricedCostUsd)} its model calls are priced at: the trace keeps the list prices`,
        )
      }
    }
    const subtype = stringOr(line.subtype, undefined)
    const text = stringOr(line.result, undefined)
    const failed = line.is_error === true || (subtype !== undefined && subtype !== 'success')
    if (!failed) {
      if (text === undefined) {
        result = { finalAnswer: null, success: false }
        return skip('a successful "result" without a result text')
      }
      ctx.emit('agent.final_answer', { answer: text })
      result = { finalAnswer: text, success: true }
      return
    }
    const errors = Array.isArray(line.errors) ? line.errors.filter((e) => typeof e === 'string') : []
    const details = [text, ...errors].filter((d): d is string => d !== undefined && d !== '')
    result = {
      finalAnswer: null,
      success: false,
      error: `the agent reported ${subtype ?? 'an error'}${details.length > 0 ? `: ${cut(details.join('; '), 1_000)}` : ''}`,
    }
  }

  const handlers: Record<string, (line: JsonObject) => void> = {
    assistant,
    user,
    system,
    result: finalResult,
  }

  return {
    line(value: JsonValue): void {
      if (!isRecord(value) || typeof value.type !== 'string') return skip('not an object with a "type"')
      const handler = Object.hasOwn(handlers, value.type) ? handlers[value.type] : undefined
      if (handler) return handler(value)
      if (IGNORED_TYPES.has(value.type)) return
      skip(`unknown type ${JSON.stringify(value.type)}`)
    },
    end: flush,
    result: () => result,
  }
}

function contentBlocks(message: JsonObject): JsonObject[] {
  return Array.isArray(message.content) ? message.content.filter(isRecord) : []
}

function toolUseOf(block: JsonObject): ToolUse | null {
  if (block.type !== 'tool_use' && block.type !== 'server_tool_use') return null
  if (typeof block.name !== 'string' || block.name === '') return null
  return { id: stringOr(block.id, undefined), name: block.name, input: block.input ?? {} }
}

/** `tool_result` (client tools) and the `…_tool_result` blocks of server tools, e.g. `web_search_tool_result`. */
function isToolResultBlock(block: JsonObject): boolean {
  return (
    typeof block.type === 'string' &&
    block.type.endsWith('tool_result') &&
    typeof block.tool_use_id === 'string'
  )
}

/** Text-only content becomes one string; images lose their base64 data, which says nothing to a reader. */
function toolResultContent(content: JsonValue | undefined): JsonValue {
  if (content === undefined) return null
  if (!Array.isArray(content)) return content
  const blocks = content.map((b) => (isRecord(b) ? b : null))
  if (blocks.every((b) => b !== null && b.type === 'text' && typeof b.text === 'string'))
    return blocks.map((b) => b!.text as string).join('\n')
  return content.map((b) => (isRecord(b) && b.type === 'image' ? withoutImageData(b) : b))
}

function withoutImageData(block: JsonObject): JsonObject {
  const source = block.source
  if (!isRecord(source) || typeof source.data !== 'string') return block
  return { ...block, source: { ...source, data: `[${source.data.length} base64 characters omitted]` } }
}

function usageOf(value: JsonValue | undefined): Usage {
  const u = isRecord(value) ? value : {}
  return {
    input_tokens: tokenCount(u.input_tokens),
    output_tokens: tokenCount(u.output_tokens),
    cache_creation_input_tokens: tokenCount(u.cache_creation_input_tokens),
    cache_read_input_tokens: tokenCount(u.cache_read_input_tokens),
  }
}

/** The lines of one message repeat its usage, the output count only growing: the largest seen is the truest. */
function maxUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: Math.max(a.input_tokens, b.input_tokens),
    output_tokens: Math.max(a.output_tokens, b.output_tokens),
    cache_creation_input_tokens: Math.max(a.cache_creation_input_tokens, b.cache_creation_input_tokens),
    cache_read_input_tokens: Math.max(a.cache_read_input_tokens, b.cache_read_input_tokens),
  }
}

function subtractUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens - b.input_tokens,
    output_tokens: a.output_tokens - b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens - b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens - b.cache_read_input_tokens,
  }
}

function round9(n: number): number {
  return Math.round(n * 1e9) / 1e9
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
