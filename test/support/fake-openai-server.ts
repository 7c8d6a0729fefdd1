/**
 * A scripted stand-in for OpenAI's Chat Completions API on 127.0.0.1, for tests that drive the real `openai` and AI
 * SDK clients over real HTTP. Each test queues the replies it expects to be asked for, in order; the server records
 * every request and answers an unscripted or invalid one with an error that names the problem (and lists it in
 * `problems`), so a test that makes one call too many fails loudly instead of hanging or passing by accident.
 * A reply is sent as JSON, or as server-sent events when the request asked to stream, as the API does.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'
import { listenOnLoopback } from './loopback-server.ts'

export interface RecordedRequest {
  /** From 0, in arrival order. */
  index: number
  method: string
  path: string
  /** Lower-cased names, as sent. */
  headers: Record<string, string>
  /** The parsed JSON body; undefined when it was not JSON. */
  body: unknown
  /** Set when the server could not serve the request as scripted. */
  problem?: string
}

export interface ToolCall {
  id: string
  name: string
  /** The arguments object; sent JSON-encoded, as the API does. */
  arguments: Record<string, unknown>
}

export interface ChatReply {
  text?: string
  toolCalls?: ToolCall[]
  /** Default 10 prompt and 5 completion tokens; null leaves usage out, as some compatible servers do. */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number } | null
  /** Default `stop` (`tool_calls` with tool calls); `length` for a reply cut off at the token limit. */
  finishReason?: string
}

/** An answer that is not a completion: an HTTP error (429 with retry-after, 500, 400) or a raw body. */
export interface ErrorReply {
  status: number
  /** Sent as JSON; default an OpenAI-style `{ error: { message, type } }`. */
  body?: unknown
  /** Sent exactly as given instead of `body` (an HTML page from a proxy). */
  raw?: string
  headers?: Record<string, string>
}

export type ScriptedChatReply = ChatReply | ErrorReply

function isErrorReply(reply: ScriptedChatReply): reply is ErrorReply {
  return typeof (reply as ErrorReply).status === 'number'
}

/** Common error answers, as OpenAI sends them. */
export const chatErrors = {
  rateLimited: (retryAfterSeconds: string): ErrorReply => ({
    status: 429,
    headers: { 'retry-after': retryAfterSeconds },
    body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
  }),
  serverError: (message = 'The server had an error'): ErrorReply => ({
    status: 500,
    body: { error: { message, type: 'server_error' } },
  }),
  badRequest: (message = 'Invalid parameter'): ErrorReply => ({
    status: 400,
    body: { error: { message, type: 'invalid_request_error' } },
  }),
}

/** What the real API insists on; a client bug that sends less is a test failure, not a silent 200. */
const ChatRequestBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string().min(1) })).min(1),
  stream: z.boolean().optional(),
})

export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = []
  readonly problems: string[] = []
  private readonly queue: ScriptedChatReply[] = []
  private closed = false

  private constructor(private readonly server: Server) {}

  /** Listens on 127.0.0.1 on a free port. */
  static async start(): Promise<FakeOpenAIServer> {
    // No request can come before the port is known, so `made.fake` is set by then.
    const made: { fake?: FakeOpenAIServer } = {}
    const server = await listenOnLoopback(
      (req, res) => made.fake!.handle(req, res),
      (problem) => void made.fake?.problems.push(problem),
    )
    made.fake = new FakeOpenAIServer(server)
    return made.fake
  }

  /** The base URL to give the SDK (`OPENAI_BASE_URL`); the SDK appends `/chat/completions`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`
  }

  /** Queues replies, served one per request in order. */
  enqueue(...replies: ScriptedChatReply[]): this {
    this.queue.push(...replies)
    return this
  }

  get pending(): number {
    return this.queue.length
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // The SDKs' fetch keeps connections alive; without this, close() would wait for them to time out.
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk)
    const raw = Buffer.concat(chunks).toString('utf8')
    const recorded: RecordedRequest = {
      index: this.requests.length,
      method: req.method ?? '',
      path: req.url ?? '',
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      ),
      body: parseJson(raw),
    }
    this.requests.push(recorded)
    const refuse = (status: number, message: string): void => {
      recorded.problem = message
      this.problems.push(`request #${recorded.index} (${recorded.method} ${recorded.path}): ${message}`)
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          error: { message: `fake-openai-server: ${message}`, type: 'invalid_request_error' },
        }),
      )
    }
    if (recorded.method !== 'POST' || recorded.path.split('?')[0] !== '/v1/chat/completions')
      return refuse(404, 'only POST /v1/chat/completions is served')
    const parsed = ChatRequestBody.safeParse(recorded.body)
    if (!parsed.success) return refuse(400, `invalid body: ${parsed.error.issues[0]?.message ?? 'not JSON'}`)
    const reply = this.queue.shift()
    if (reply === undefined) return refuse(500, 'unexpected request: no scripted reply left')
    const id = `chatcmpl-fake-${recorded.index}`
    if (isErrorReply(reply)) {
      res.writeHead(reply.status, {
        'content-type': reply.raw === undefined ? 'application/json' : 'text/html',
        ...reply.headers,
      })
      res.end(
        reply.raw ??
          JSON.stringify(reply.body ?? { error: { message: `HTTP ${reply.status}`, type: 'server_error' } }),
      )
      return
    }
    if (parsed.data.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const chunk of streamChunks(id, parsed.data.model, reply, includeUsage(recorded.body)))
        res.write(`data: ${JSON.stringify(chunk)}\n\n`)
      res.end('data: [DONE]\n\n')
      return
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_fake_${recorded.index}` })
    res.end(JSON.stringify(completion(id, parsed.data.model, reply)))
  }
}

const CREATED = 1_700_000_000

function finishReason(reply: ChatReply): string {
  if (reply.finishReason !== undefined) return reply.finishReason
  return reply.toolCalls && reply.toolCalls.length > 0 ? 'tool_calls' : 'stop'
}

function usageOf(reply: ChatReply) {
  const { prompt_tokens = 10, completion_tokens = 5, cached_tokens = 0 } = reply.usage ?? {}
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    prompt_tokens_details: { cached_tokens },
  }
}

function wireToolCalls(reply: ChatReply) {
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }))
}

/** A `chat.completion` object. */
export function completion(id: string, model: string, reply: ChatReply): unknown {
  const toolCalls = wireToolCalls(reply)
  return {
    id,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReason(reply),
        logprobs: null,
      },
    ],
    ...(reply.usage === null ? {} : { usage: usageOf(reply) }),
  }
}

/** The `chat.completion.chunk`s of a streamed reply: role, text in two parts, tool calls, finish, then usage. */
function streamChunks(id: string, model: string, reply: ChatReply, withUsage: boolean): unknown[] {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  })
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })]
  const text = reply.text ?? ''
  const half = Math.ceil(text.length / 2)
  for (const part of [text.slice(0, half), text.slice(half)])
    if (part !== '') out.push(chunk({ content: part }))
  for (const [index, call] of wireToolCalls(reply).entries())
    out.push(chunk({ tool_calls: [{ index, ...call }] }))
  out.push(chunk({}, finishReason(reply)))
  if (withUsage && reply.usage !== null)
    out.push({
      id,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [],
      usage: usageOf(reply),
    })
  return out
}

function includeUsage(body: unknown): boolean {
  return (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
