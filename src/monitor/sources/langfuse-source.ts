import pLimit from 'p-limit'
import {
  AgentEvalOpsError,
  isAgentEvalOpsError,
  LangfuseTrace,
  LangfuseTraceList,
  LangfuseTraceSummary,
  type AmpSpan,
  type LangfuseObservation,
} from '../../core/index.ts'
import type { MonitorTraceSource, MonitorWindow, SourcedTrace } from '../contract.ts'
import { assembleTrace, startsInWindow } from './assemble-trace.ts'
import {
  createLangfuseClient,
  jsonBody,
  type LangfuseClient,
  type LangfuseOptions,
} from './langfuse-client.ts'
import type { AmpMessage } from './span-semantics.ts'

/*
 * Traces from Langfuse's public API: `GET /api/public/traces` for a window (fromTimestamp / toTimestamp,
 * oldest first, `page` from 1 until `meta.totalPages`), then `GET /api/public/traces/{id}` for each trace's
 * observations. Each trace becomes a FullTrace whose root is a span standing for the Langfuse trace itself (its id
 * the trace id, its input and output the trace's), the observations under it by parentObservationId.
 *
 * Observation types: GENERATION → llm, AGENT → agent, TOOL → tool, CHAIN / RETRIEVER / EMBEDDING / EVALUATOR /
 * GUARDRAIL → the same word in lower case, EVENT → event. SDKs before Langfuse's typed observations logged agents
 * and tools as plain SPANs: a SPAN with a GENERATION under it counts as an agent, a SPAN with nothing under it as
 * a tool, any other as a chain. An observation at level ERROR is an error span (statusMessage its message).
 */

/** Default traces per page (each costs one more request for its observations). */
export const LANGFUSE_PAGE_SIZE = 10
/** Trace details fetched at once within a page. */
export const LANGFUSE_FETCH_CONCURRENCY = 4

export interface LangfuseSourceOptions extends LangfuseOptions {
  pageSize?: number
}

export function createLangfuseSource(options: LangfuseSourceOptions): MonitorTraceSource {
  const pageSize = options.pageSize ?? LANGFUSE_PAGE_SIZE
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    throw new AgentEvalOpsError(
      'USAGE',
      `Langfuse source: pageSize must be an integer in 1..100, got ${pageSize}`,
    )
  }
  const client = createLangfuseClient(options)
  return {
    description: `Langfuse ${client.endpoint}`,
    pages: (window, signal) => readPages(client, pageSize, window, signal),
  }
}

async function* readPages(
  client: LangfuseClient,
  pageSize: number,
  window: MonitorWindow,
  signal: AbortSignal,
): AsyncGenerator<SourcedTrace[]> {
  for (let page = 1; ; page++) {
    if (signal.aborted) return
    const items: SourcedTrace[] = []
    let last: boolean
    try {
      last = await readPage(client, page, pageSize, window, signal, items)
    } catch (e) {
      // Told to stop (SIGTERM) in the middle of a page: what was read is handed on, the rest left for the next run.
      if (!(signal.aborted && isAgentEvalOpsError(e, 'RUN_ABORTED'))) throw e
      if (items.length > 0) yield items
      return
    }
    if (items.length > 0) yield items
    if (last) return
  }
}

/** Reads one page of the window into `items`; true when it was the last page. */
async function readPage(
  client: LangfuseClient,
  page: number,
  pageSize: number,
  window: MonitorWindow,
  signal: AbortSignal,
  items: SourcedTrace[],
): Promise<boolean> {
  const query = new URLSearchParams({
    page: String(page),
    limit: String(pageSize),
    fromTimestamp: window.start.toISOString(),
    toTimestamp: window.end.toISOString(),
    orderBy: 'timestamp.asc',
    // The list is only for ids and times; each trace's input, output and observations come with its detail.
    fields: 'core',
  })
  const what = `Langfuse ${client.endpoint}/api/public/traces (page ${page})`
  const response = await client.request('GET', `/traces?${query.toString()}`, signal)
  const parsed = LangfuseTraceList.safeParse(jsonBody(response, what))
  if (!parsed.success) {
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `${what} is not a trace list: ${parsed.error.issues[0]?.message}`,
      {
        hint: 'check the endpoint is a Langfuse server of v2 or later',
      },
    )
  }
  const ids: string[] = []
  for (const raw of parsed.data.data) {
    const summary = LangfuseTraceSummary.safeParse(raw)
    if (!summary.success) {
      const id = (raw as { id?: unknown } | null)?.id
      items.push({
        ok: false,
        traceId: typeof id === 'string' ? id : null,
        reason: 'malformed trace in the list',
      })
      continue
    }
    if (startsInWindow(summary.data.timestamp, window)) ids.push(summary.data.id)
  }
  const limit = pLimit(LANGFUSE_FETCH_CONCURRENCY)
  const details = await Promise.allSettled(ids.map((id) => limit(() => traceOf(client, id, signal))))
  // In list order, up to the first that failed: a stop keeps what came before it, any other failure is thrown.
  for (const detail of details) {
    if (detail.status === 'rejected') throw detail.reason
    items.push(detail.value)
  }
  return page >= parsed.data.meta.totalPages || parsed.data.data.length < pageSize
}

async function traceOf(client: LangfuseClient, id: string, signal: AbortSignal): Promise<SourcedTrace> {
  const what = `Langfuse ${client.endpoint}/api/public/traces/${id}`
  const response = await client.request('GET', `/traces/${encodeURIComponent(id)}`, signal)
  if (response.status === 404) {
    return { ok: false, traceId: id, reason: 'the trace was listed but is gone (404)' }
  }
  const parsed = LangfuseTrace.safeParse(jsonBody(response, what))
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
    return {
      ok: false,
      traceId: id,
      reason: `malformed Langfuse trace${where}: ${issue?.message ?? 'invalid'}`,
    }
  }
  return fullTraceOf(parsed.data)
}

/** A Langfuse trace with its observations as a FullTrace (see the module comment for the mapping). */
export function fullTraceOf(trace: LangfuseTrace): SourcedTrace {
  const observations = trace.observations
  const ids = new Set(observations.map((o) => o.id))
  const children = new Map<string, LangfuseObservation[]>()
  for (const o of observations) {
    const parent = o.parentObservationId && ids.has(o.parentObservationId) ? o.parentObservationId : trace.id
    children.set(parent, [...(children.get(parent) ?? []), o])
  }
  let end = Date.parse(trace.timestamp) + Math.max(0, (trace.latency ?? 0) * 1000)
  for (const o of observations) end = Math.max(end, Date.parse(o.endTime ?? o.startTime))
  const rootEnd = new Date(end).toISOString()
  const root: AmpSpan = {
    traceId: trace.id,
    spanId: trace.id,
    parentSpanId: null,
    name: trace.name ?? 'trace',
    service: trace.environment ?? '',
    startTime: trace.timestamp,
    endTime: rootEnd,
    durationInNanos: Math.max(0, end - Date.parse(trace.timestamp)) * 1_000_000,
    kind: 'INTERNAL',
    status: 'UNSET',
    attributes: { 'langfuse.trace.name': trace.name ?? null },
    ampAttributes: {
      kind: 'chain',
      ...(trace.input === undefined || trace.input === null ? {} : { input: trace.input }),
      ...(trace.output === undefined || trace.output === null ? {} : { output: trace.output }),
      status: { error: false },
    },
  }
  const spans = [root, ...observations.map((o) => spanOf(trace.id, o, children.get(o.id) ?? []))]
  return assembleTrace({ traceId: trace.id, spans, rootSpanId: trace.id })
}

function spanOf(traceId: string, o: LangfuseObservation, children: readonly LangfuseObservation[]): AmpSpan {
  const kind = kindOf(o, children)
  const failed = o.level === 'ERROR'
  const start = Date.parse(o.startTime)
  const endTime = o.endTime ?? o.startTime
  const data: Record<string, unknown> = {}
  if (o.name) data['name'] = o.name
  let input: unknown = o.input
  let output: unknown = o.output
  if (kind === 'llm') {
    input = messagesOf(o.input, 'user')
    output = messagesOf(o.output, 'assistant')
    if (o.model) data['model'] = o.model
    const usage = usageOf(o)
    if (usage) data['tokenUsage'] = usage
    const params = o.modelParameters
    const temperature = isRecord(params) ? Number(params['temperature']) : NaN
    if (Number.isFinite(temperature)) data['temperature'] = temperature
  } else if (kind === 'tool') {
    input = o.input === undefined || o.input === null ? undefined : jsonText(o.input)
    output = o.output === undefined || o.output === null ? undefined : jsonText(o.output)
  } else if (kind === 'agent') {
    input = textOf(o.input)
    output = textOf(o.output)
  }
  return {
    traceId,
    spanId: o.id,
    parentSpanId: o.parentObservationId && o.parentObservationId !== '' ? o.parentObservationId : traceId,
    name: o.name ?? o.type.toLowerCase(),
    service: '',
    startTime: o.startTime,
    endTime,
    durationInNanos: Math.max(0, Date.parse(endTime) - start) * 1_000_000,
    kind: kind === 'llm' ? 'CLIENT' : 'INTERNAL',
    status: failed ? 'ERROR' : 'UNSET',
    attributes: {
      'langfuse.observation.type': o.type,
      ...(o.level ? { 'langfuse.observation.level': o.level } : {}),
      ...(o.metadata === undefined ? {} : { 'langfuse.observation.metadata': o.metadata }),
    },
    ampAttributes: {
      kind,
      ...(input === undefined || input === null ? {} : { input }),
      ...(output === undefined || output === null ? {} : { output }),
      ...(Object.keys(data).length > 0 ? { data } : {}),
      status: { error: failed },
      ...(failed && o.statusMessage ? { error: { message: o.statusMessage } } : {}),
    },
  }
}

const TYPE_KINDS: Readonly<Record<string, string>> = {
  GENERATION: 'llm',
  AGENT: 'agent',
  TOOL: 'tool',
  CHAIN: 'chain',
  RETRIEVER: 'retriever',
  EMBEDDING: 'embedding',
  EVALUATOR: 'evaluator',
  GUARDRAIL: 'guardrail',
  EVENT: 'event',
}

function kindOf(o: LangfuseObservation, children: readonly LangfuseObservation[]): string {
  const typed = TYPE_KINDS[o.type.toUpperCase()]
  if (typed) return typed
  if (o.type.toUpperCase() !== 'SPAN') return 'unknown'
  if (children.some((c) => c.type.toUpperCase() === 'GENERATION')) return 'agent'
  return children.length === 0 ? 'tool' : 'chain'
}

function usageOf(o: LangfuseObservation): Record<string, number> | undefined {
  const details = o.usageDetails ?? {}
  const input = details['input'] ?? o.usage?.input ?? undefined
  const output = details['output'] ?? o.usage?.output ?? undefined
  if (input === undefined && output === undefined) return undefined
  const total = details['total'] ?? o.usage?.total ?? (input ?? 0) + (output ?? 0)
  return { inputTokens: input ?? 0, outputTokens: output ?? 0, totalTokens: total }
}

/**
 * Chat messages in the seed's shape from what Langfuse SDKs log: a string, an array of `{ role, content }`
 * (OpenAI's tool_calls read too), `{ messages: [...] }`, or a single message object.
 */
function messagesOf(value: unknown, role: string): AmpMessage[] | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return [{ role, content: value }]
  if (Array.isArray(value)) return value.flatMap((m) => messageOf(m, role))
  if (isRecord(value) && Array.isArray(value['messages'])) return messagesOf(value['messages'], role)
  return messageOf(value, role)
}

function messageOf(value: unknown, role: string): AmpMessage[] {
  if (typeof value === 'string') return [{ role, content: value }]
  if (!isRecord(value)) return []
  const toolCalls = (Array.isArray(value['tool_calls']) ? (value['tool_calls'] as unknown[]) : [])
    .filter(isRecord)
    .flatMap((c) => {
      const fn = isRecord(c['function']) ? c['function'] : c
      const name = fn['name']
      if (typeof name !== 'string') return []
      return [
        {
          ...(typeof c['id'] === 'string' ? { id: c['id'] } : {}),
          name,
          arguments: jsonText(fn['arguments']),
        },
      ]
    })
  const content = value['content']
  return [
    {
      role: typeof value['role'] === 'string' ? value['role'] : role,
      ...(content === undefined || content === null ? {} : { content: textOf(content) ?? jsonText(content) }),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(typeof value['tool_call_id'] === 'string' ? { toolCallId: value['tool_call_id'] } : {}),
    },
  ]
}

/** Text from a string, or the last message's content of what looks like a conversation; else JSON text. */
function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  const messages = messagesOf(value, 'assistant')
  const last = messages?.filter((m) => typeof m.content === 'string').at(-1)?.content
  return last ?? jsonText(value)
}

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value
  return JSON.stringify(value ?? {}) ?? '{}'
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
