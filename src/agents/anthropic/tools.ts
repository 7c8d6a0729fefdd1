import type Anthropic from '@anthropic-ai/sdk'
import {
  errorMessage,
  type EnvHandle,
  type JsonValue,
  type TaskSpec,
  type ToolSpec,
} from '../../core/index.ts'

/** What a tool handler is given besides the model's input. */
export interface ToolContext {
  task: TaskSpec
  env: EnvHandle
  /** Aborted at a limit or on cancel: a handler that runs long should stop when it fires. */
  signal: AbortSignal
}

/**
 * Runs one tool the model asked for. Its input is the model's `tool_use` input as is (not checked against the
 * tool's schema: a bad call is the agent's to make and an evaluator's to see). It returns plain JSON (a string
 * is sent to the model as is, anything else as JSON text); throwing reports the error to the model as an
 * `is_error` tool result, and the conversation goes on.
 */
export type ToolHandler = (input: JsonValue, ctx: ToolContext) => JsonValue | Promise<JsonValue>

/**
 * An EnvHandle that carries tool handlers. A benchmark whose tools act on the trial's own workspace returns one
 * from prepare(), with handlers bound to that workspace: the runner uses them for every tool that its own
 * `tools` option does not cover.
 */
export interface ToolEnv extends EnvHandle {
  toolHandlers?: Record<string, ToolHandler>
}

export interface ToolOutcome {
  /** As it goes into the trace: redacted, plain JSON. */
  result: JsonValue
  isError: boolean
  /** The tool_result block sent back to the model. */
  block: Anthropic.ToolResultBlockParam
}

/** The task's tools in the API's shape. The API requires an object schema, so a schema-less tool gets one. */
export function toolParams(tools: readonly ToolSpec[] | undefined): Anthropic.Tool[] {
  return (tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    input_schema: { type: 'object', ...tool.inputSchema },
  }))
}

/** The handler for a tool: the runner's own first, then the one the benchmark put in the env. */
export function findHandler(
  name: string,
  own: Readonly<Record<string, ToolHandler>> | undefined,
  env: EnvHandle,
): ToolHandler | undefined {
  if (own && Object.hasOwn(own, name)) return own[name]
  const fromEnv = env.toolHandlers
  if (fromEnv && typeof fromEnv === 'object' && Object.hasOwn(fromEnv, name)) {
    const handler = (fromEnv as Record<string, unknown>)[name]
    if (typeof handler === 'function') return handler as ToolHandler
  }
  return undefined
}

export interface ToolCall {
  id: string
  name: string
  input: JsonValue
}

/**
 * Runs one tool call to an outcome. Nothing it does escapes as an exception except an abort of the run itself:
 * an unknown tool, a handler that throws and a result that is not JSON all become error results for the model.
 */
export async function runTool(
  call: ToolCall,
  handler: ToolHandler | undefined,
  ctx: ToolContext,
  redact: (text: string) => string,
): Promise<ToolOutcome> {
  if (!handler) return failed(call, `unknown tool ${JSON.stringify(call.name)}`, redact)
  let value: JsonValue
  try {
    value = await handler(call.input, ctx)
  } catch (e) {
    // A limit or cancel that reached the handler stops the run; it is not the tool's failure.
    if (ctx.signal.aborted) throw ctx.signal.reason as Error
    return failed(call, `tool ${JSON.stringify(call.name)} failed: ${errorMessage(e)}`, redact)
  }
  const plain = toPlainJson(value)
  if (!plain.ok) return failed(call, `tool ${JSON.stringify(call.name)} returned ${plain.problem}`, redact)
  const result = redactJson(plain.value, redact)
  return {
    result,
    isError: false,
    block: {
      type: 'tool_result',
      tool_use_id: call.id,
      content: typeof result === 'string' ? result : JSON.stringify(result),
    },
  }
}

function failed(call: ToolCall, message: string, redact: (text: string) => string): ToolOutcome {
  const text = redact(message)
  return {
    result: text,
    isError: true,
    block: { type: 'tool_result', tool_use_id: call.id, content: text, is_error: true },
  }
}

/** Handlers may be plain JavaScript: undefined becomes null, and what JSON cannot hold is an error. */
function toPlainJson(value: unknown): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true, value: null }
  try {
    const text = JSON.stringify(value)
    if (text === undefined) return { ok: false, problem: `a ${typeof value}, which is not JSON` }
    return { ok: true, value: JSON.parse(text) as JsonValue }
  } catch (e) {
    return { ok: false, problem: `a value that is not JSON (${errorMessage(e)})` }
  }
}

/** Every string in a JSON value, redacted: a tool that reads the environment must not put a key in the trace. */
export function redactJson(value: JsonValue, redact: (text: string) => string): JsonValue {
  if (typeof value === 'string') return redact(value)
  if (Array.isArray(value)) return value.map((v) => redactJson(v, redact))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactJson(v, redact)]))
  }
  return value
}
