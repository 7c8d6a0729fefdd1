import { AEO, SPAN } from '../../core/index.ts'
import { jsonOrText } from './otlp-values.ts'

/*
 * What a span means for scoring, read from its OpenTelemetry attributes into the seed's `ampAttributes` shape
 * (see AmpAttributes in src/core/monitor-wire.ts), so every source hands the scorer one format. Three attribute
 * families are read, first match wins:
 *
 * - OpenInference (`openinference.span.kind`, `llm.*`, `tool.*`, `input.value` / `output.value`: Arize Phoenix
 *   and its instrumentations);
 * - OpenTelemetry GenAI semantic conventions (`gen_ai.operation.name`, `gen_ai.input.messages` /
 *   `gen_ai.output.messages` in their parts shape, `gen_ai.tool.*`, `gen_ai.usage.*`; our own spans.jsonl uses these);
 * - OpenLLMetry / Traceloop (`traceloop.span.kind`, indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`,
 *   `traceloop.entity.input` / `output`: what the seed's own traces carry).
 *
 * The result, per kind (the scorer relies on these meanings):
 * - `llm`: `input` = the messages sent, `[{ role, content, toolCalls?, toolCallId? }]`; `output` = the reply as
 *   `[{ role: 'assistant', content, toolCalls: [{ id?, name, arguments }] }]` (arguments as JSON text, as the seed
 *   has them); `data.model`, `data.vendor`, `data.temperature`, `data.tokenUsage`.
 * - `tool`: `input` = the arguments (JSON text as exported), `output` = the result; `data.name` the tool,
 *   `data.toolCallId` the call id when the span has one.
 * - `agent`: `input` = the task (the last user message, or input.value), `output` = the final answer text;
 *   `data.name` the agent, `data.model` / `data.vendor` when the span says, `data.tools` its tool definitions.
 * - anything else (`chain`, `task`, `retriever`, `embedding`, `unknown`): `input` / `output` when the span has a
 *   generic value for them.
 * - `status`: `{ error, errorType }`, an error when the span's status is ERROR or it has `error.type` (our tool
 *   spans mark a failed tool call that way); `error.message` from the status message or an `exception` event.
 * Values a span does not have are left out, never invented.
 */

/** A span as the mapping needs it: name, flat attributes, status and the attributes of its events. */
export interface SpanFacts {
  name: string
  attributes: Readonly<Record<string, unknown>>
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number
  statusMessage?: string | undefined
  events?: readonly { name: string; attributes: Readonly<Record<string, unknown>> }[]
}

/** A chat message in the seed's shape. */
export interface AmpMessage {
  role: string
  content?: string
  toolCalls?: { id?: string; name: string; arguments: string }[]
  toolCallId?: string
}

const OPERATION_KINDS: Readonly<Record<string, string>> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  embeddings: 'embedding',
  retrieval: 'retriever',
}

const TRACELOOP_KINDS: Readonly<Record<string, string>> = {
  workflow: 'chain',
  task: 'task',
  agent: 'agent',
  tool: 'tool',
}

/** The span's kind: llm, tool, agent, chain, task, retriever, embedding… or unknown. */
export function spanKindOf(span: SpanFacts): string {
  const a = span.attributes
  const openInference = str(a['openinference.span.kind'])
  if (openInference) return openInference.toLowerCase()
  const operation = str(a['gen_ai.operation.name'])
  if (operation) return OPERATION_KINDS[operation] ?? 'unknown'
  const traceloop = str(a['traceloop.span.kind'])
  if (traceloop) return TRACELOOP_KINDS[traceloop] ?? 'unknown'
  if (str(a['llm.request.type'])) return 'llm'
  // Our own trial span wraps the agent's: a frame, like the frameworks' workflow spans.
  if (span.name === SPAN.task && a[AEO.taskId] !== undefined) return 'chain'
  if (a['gen_ai.request.model'] !== undefined || a['gen_ai.usage.input_tokens'] !== undefined) return 'llm'
  return 'unknown'
}

/** The span's `ampAttributes`. */
export function ampAttributesOf(span: SpanFacts): Record<string, unknown> {
  const kind = spanKindOf(span)
  const a = span.attributes
  const out: Record<string, unknown> = { kind }
  let input: unknown
  let output: unknown
  const data: Record<string, unknown> = {}

  if (kind === 'llm') {
    input = inputMessages(a)
    output = outputMessages(a)
  } else if (kind === 'tool') {
    input = first(a, ['gen_ai.tool.call.arguments', 'input.value', 'traceloop.entity.input'])
    output = first(a, ['gen_ai.tool.call.result', 'output.value', 'traceloop.entity.output'])
    const name =
      str(a['gen_ai.tool.name']) ??
      str(a['tool.name']) ??
      str(a['traceloop.entity.name']) ??
      nameAfter(span.name, 'execute_tool ')
    if (name) data['name'] = name
    const callId = str(a['gen_ai.tool.call.id']) ?? str(a['tool_call.id'])
    if (callId) data['toolCallId'] = callId
    const description = str(a['gen_ai.tool.description']) ?? str(a['tool.description'])
    if (description) data['description'] = description
  } else if (kind === 'agent') {
    input = lastUserText(inputMessages(a)) ?? first(a, ['input.value', 'traceloop.entity.input'])
    output = finalText(outputMessages(a)) ?? first(a, ['output.value', 'traceloop.entity.output'])
    const name =
      str(a['gen_ai.agent.name']) ??
      str(a['agent.name']) ??
      str(a['traceloop.entity.name']) ??
      nameAfter(span.name, 'invoke_agent ')
    if (name) data['name'] = name
    const tools = toolDefinitions(a)
    if (tools) data['tools'] = tools
  } else {
    input = first(a, ['input.value', 'traceloop.entity.input'])
    output = first(a, ['output.value', 'traceloop.entity.output'])
    const name = str(a['traceloop.entity.name'])
    if (name) data['name'] = name
  }
  if (kind === 'llm' || kind === 'agent') {
    const model =
      str(a['gen_ai.request.model']) ?? str(a['gen_ai.response.model']) ?? str(a['llm.model_name'])
    if (model) data['model'] = model
    const vendor =
      str(a['gen_ai.provider.name']) ??
      str(a['gen_ai.system']) ??
      str(a['llm.provider']) ??
      str(a['llm.system'])
    if (vendor) data['vendor'] = vendor
    const temperature = num(a['gen_ai.request.temperature']) ?? invocationTemperature(a)
    if (temperature !== undefined) data['temperature'] = temperature
    const usage = tokenUsageOf(a)
    if (usage) data['tokenUsage'] = usage
  }
  if (input !== undefined) out['input'] = input
  if (output !== undefined) out['output'] = output
  if (Object.keys(data).length > 0) out['data'] = data

  const failure = failureOf(span)
  out['status'] = { error: failure !== null, ...(failure?.type ? { errorType: failure.type } : {}) }
  if (failure?.message) out['error'] = { message: failure.message }
  return out
}

/** Input and output tokens as the seed counts them; undefined when the span reports none. */
function tokenUsageOf(a: Readonly<Record<string, unknown>>): Record<string, number> | undefined {
  const input =
    num(a['gen_ai.usage.input_tokens']) ??
    num(a['gen_ai.usage.prompt_tokens']) ??
    num(a['llm.token_count.prompt'])
  const output =
    num(a['gen_ai.usage.output_tokens']) ??
    num(a['gen_ai.usage.completion_tokens']) ??
    num(a['llm.token_count.completion'])
  const total = num(a['llm.token_count.total']) ?? num(a['llm.usage.total_tokens'])
  if (input === undefined && output === undefined && total === undefined) return undefined
  return {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    totalTokens: total ?? (input ?? 0) + (output ?? 0),
  }
}

function failureOf(span: SpanFacts): { type?: string; message?: string } | null {
  const exception = span.events?.find((e) => e.name === 'exception')?.attributes
  const type = str(span.attributes['error.type']) ?? str(exception?.['exception.type'])
  const message = span.statusMessage || str(exception?.['exception.message'])
  if (span.statusCode !== 2 && type === undefined) return null
  return { ...(type ? { type } : {}), ...(message ? { message } : {}) }
}

/** The messages an LLM span was sent, from whichever family of attributes carries them. */
function inputMessages(a: Readonly<Record<string, unknown>>): AmpMessage[] | undefined {
  const semconv = partsMessages(a['gen_ai.input.messages'])
  if (semconv) {
    const system = systemText(a['gen_ai.system_instructions'])
    return system === undefined ? semconv : [{ role: 'system', content: system }, ...semconv]
  }
  return (
    openInferenceMessages(a, 'llm.input_messages') ??
    indexedMessages(a, 'gen_ai.prompt') ??
    textMessage('user', a['input.value'])
  )
}

function outputMessages(a: Readonly<Record<string, unknown>>): AmpMessage[] | undefined {
  return (
    partsMessages(a['gen_ai.output.messages']) ??
    openInferenceMessages(a, 'llm.output_messages') ??
    indexedMessages(a, 'gen_ai.completion') ??
    textMessage('assistant', a['output.value'])
  )
}

/** The GenAI conventions' `[{ role, parts: [{ type, content | id, name, arguments | response }] }]`. */
function partsMessages(value: unknown): AmpMessage[] | undefined {
  const parsed = jsonOrText(value)
  if (!Array.isArray(parsed)) return undefined
  const messages: AmpMessage[] = []
  for (const m of parsed as unknown[]) {
    if (!isRecord(m)) continue
    const role = str(m['role']) ?? 'user'
    const parts = Array.isArray(m['parts']) ? (m['parts'] as unknown[]).filter(isRecord) : []
    if (parts.length === 0 && typeof m['content'] === 'string') {
      messages.push({ role, content: m['content'] })
      continue
    }
    const texts: string[] = []
    const toolCalls: NonNullable<AmpMessage['toolCalls']> = []
    for (const part of parts) {
      const type = str(part['type'])
      if (type === 'text' || type === 'reasoning') {
        if (typeof part['content'] === 'string') texts.push(part['content'])
      } else if (type === 'tool_call') {
        const name = str(part['name'])
        if (name) toolCalls.push({ ...idOf(part['id']), name, arguments: jsonText(part['arguments']) })
      } else if (type === 'tool_call_response') {
        messages.push({
          role: 'tool',
          content: jsonText(part['response'] ?? part['result']),
          ...(str(part['id']) ? { toolCallId: str(part['id'])! } : {}),
        })
      }
    }
    if (texts.length > 0 || toolCalls.length > 0 || parts.length === 0) {
      messages.push({
        role,
        ...(texts.length > 0 ? { content: texts.join('') } : {}),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      })
    }
  }
  return messages
}

/** OpenInference's flattened `llm.input_messages.N.message.role` / `.content` / `.tool_calls.M.tool_call.*`. */
function openInferenceMessages(
  a: Readonly<Record<string, unknown>>,
  prefix: string,
): AmpMessage[] | undefined {
  const rows = indexed(a, prefix)
  if (rows.length === 0) return undefined
  return rows.map((row) => {
    const calls = indexed(row, 'message.tool_calls').flatMap((c) => {
      const name = str(c['tool_call.function.name'])
      if (!name) return []
      return [{ ...idOf(c['tool_call.id']), name, arguments: jsonText(c['tool_call.function.arguments']) }]
    })
    const content = str(row['message.content'])
    const callId = str(row['message.tool_call_id'])
    return {
      role: str(row['message.role']) ?? 'user',
      ...(content !== undefined ? { content } : {}),
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      ...(callId ? { toolCallId: callId } : {}),
    }
  })
}

/** OpenLLMetry's `gen_ai.prompt.N.role` / `.content` / `.tool_calls.M.name`… */
function indexedMessages(a: Readonly<Record<string, unknown>>, prefix: string): AmpMessage[] | undefined {
  const rows = indexed(a, prefix)
  if (rows.length === 0) return undefined
  return rows.map((row) => {
    const calls = indexed(row, 'tool_calls').flatMap((c) => {
      const name = str(c['name'])
      return name ? [{ ...idOf(c['id']), name, arguments: jsonText(c['arguments']) }] : []
    })
    const content = str(row['content'])
    const callId = str(row['tool_call_id'])
    return {
      role: str(row['role']) ?? 'user',
      ...(content !== undefined ? { content } : {}),
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      ...(callId ? { toolCallId: callId } : {}),
    }
  })
}

/** Attributes `prefix.N.rest` grouped by N (in numeric order), each group keyed by `rest`. */
function indexed(a: Readonly<Record<string, unknown>>, prefix: string): Record<string, unknown>[] {
  const groups = new Map<number, Record<string, unknown>>()
  const head = `${prefix}.`
  for (const [key, value] of Object.entries(a)) {
    if (!key.startsWith(head)) continue
    const match = /^(\d+)\.(.+)$/.exec(key.slice(head.length))
    if (!match) continue
    const index = Number(match[1])
    let group = groups.get(index)
    if (!group) groups.set(index, (group = {}))
    group[match[2]!] = value
  }
  return [...groups.entries()].sort(([x], [y]) => x - y).map(([, group]) => group)
}

function toolDefinitions(a: Readonly<Record<string, unknown>>): unknown[] | undefined {
  const defined = jsonOrText(a['gen_ai.tool.definitions'])
  if (Array.isArray(defined)) return defined as unknown[]
  const rows = indexed(a, 'llm.tools')
  if (rows.length === 0) return undefined
  return rows.map((row) => jsonOrText(row['tool.json_schema']))
}

function systemText(value: unknown): string | undefined {
  const parsed = jsonOrText(value)
  if (typeof parsed === 'string') return parsed
  if (!Array.isArray(parsed)) return undefined
  const texts = (parsed as unknown[])
    .filter(isRecord)
    .map((p) => p['content'])
    .filter((c): c is string => typeof c === 'string')
  return texts.length > 0 ? texts.join('') : undefined
}

function invocationTemperature(a: Readonly<Record<string, unknown>>): number | undefined {
  const params = jsonOrText(a['llm.invocation_parameters'])
  return isRecord(params) ? num(params['temperature']) : undefined
}

function textMessage(role: string, value: unknown): AmpMessage[] | undefined {
  return typeof value === 'string' ? [{ role, content: value }] : undefined
}

function lastUserText(messages: AmpMessage[] | undefined): string | undefined {
  return messages?.filter((m) => m.role === 'user' && m.content !== undefined).at(-1)?.content
}

function finalText(messages: AmpMessage[] | undefined): string | undefined {
  return messages?.filter((m) => m.content !== undefined).at(-1)?.content
}

function first(a: Readonly<Record<string, unknown>>, keys: readonly string[]): unknown {
  for (const key of keys) if (a[key] !== undefined && a[key] !== null) return a[key]
  return undefined
}

function nameAfter(spanName: string, prefix: string): string | undefined {
  return spanName.startsWith(prefix) && spanName.length > prefix.length
    ? spanName.slice(prefix.length)
    : undefined
}

function idOf(value: unknown): { id?: string } {
  const id = str(value)
  return id ? { id } : {}
}

/** Arguments and results as JSON text, the way the seed's traces carry them. */
function jsonText(value: unknown): string {
  if (typeof value === 'string') return value
  return JSON.stringify(value ?? {}) ?? '{}'
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
