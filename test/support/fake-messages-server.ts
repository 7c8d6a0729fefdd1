/**
 * A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for tests that drive the real SDK over real
 * HTTP. Each test queues the replies it expects to be asked for, in order; the server records every request and
 * answers an unscripted one with a 500 that names the problem (and lists it in `problems`), so a test that makes
 * one call too many fails loudly instead of hanging or passing by accident.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'
import { listenOnLoopback } from './loopback-server.ts'

export interface ScriptedReply {
  /** Default 200. */
  status?: number
  /** Sent as JSON. */
  body?: unknown
  /** Sent exactly as given instead of `body`: a malformed body, an HTML error page. */
  raw?: string
  /** Added to (and overriding) the default `content-type: application/json` and `request-id`. */
  headers?: Record<string, string>
  /** Wait this long before answering; the wait ends early if the client goes away. */
  delayMs?: number
}

/** A reply, or a builder that sees the request (to echo its model, say). */
export type Reply = ScriptedReply | ((request: RecordedRequest) => ScriptedReply)

export interface RecordedRequest {
  /** From 0, in arrival order. */
  index: number
  method: string
  /** Path and query, e.g. `/v1/messages`. */
  path: string
  /** Lower-cased names, as sent (credentials included: tests check they arrive, and that nothing else leaks). */
  headers: Record<string, string>
  rawBody: string
  /** The parsed JSON body; undefined when it was not JSON. */
  body: unknown
  /** Set when the server could not serve the request as scripted (invalid body, wrong path, queue empty). */
  problem?: string
  /** The status the server answered with. */
  status?: number
  /** Set when the client closed the connection before its (delayed) reply was sent: the call was aborted. */
  abandoned?: boolean
}

export interface FakeServerOptions {
  /** When set, a request must carry it (as `x-api-key` or `Authorization: Bearer`) or get a 401. */
  apiKey?: string
  /**
   * Answers every request the queue has no reply for. For concurrent callers (an eval file's trials), whose
   * order a queue cannot know: the reply is built from the request itself.
   */
  responder?: (request: RecordedRequest) => Reply
}

const ContentBlockParam = z.looseObject({ type: z.string().min(1) })
const MessageParam = z.looseObject({
  // SDK 1.x also sends mid-conversation system messages.
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(ContentBlockParam)]),
})
/** What the real API insists on; a client bug that sends less is a test failure, not a silent 200. */
export const MessagesRequestBody = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(MessageParam).min(1),
})

const MAX_BODY_BYTES = 10 * 1024 * 1024

export class FakeMessagesServer {
  readonly requests: RecordedRequest[] = []
  /** One line per request the server could not serve as scripted. */
  readonly problems: string[] = []
  private readonly queue: Reply[] = []
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false

  private constructor(
    private readonly server: Server,
    private readonly options: FakeServerOptions,
  ) {}

  /** Listens on 127.0.0.1 on a free port. */
  static async start(options: FakeServerOptions = {}): Promise<FakeMessagesServer> {
    // No request can come before the port is known, so `made.fake` is set by then.
    const made: { fake?: FakeMessagesServer } = {}
    const server = await listenOnLoopback(
      (req, res) => made.fake!.handle(req, res),
      (problem) => void made.fake?.problems.push(problem),
    )
    made.fake = new FakeMessagesServer(server, options)
    return made.fake
  }

  /** The base URL to give the SDK (`baseURL`); the SDK appends `/v1/messages`. */
  get url(): string {
    const address = this.server.address() as AddressInfo
    return `http://127.0.0.1:${address.port}`
  }

  /** Queues replies, served one per request in order. */
  enqueue(...replies: Reply[]): this {
    this.queue.push(...replies)
    return this
  }

  /** Replies queued but not yet asked for. */
  get pending(): number {
    return this.queue.length
  }

  /** Requests that reached /v1/messages with a valid body, in order. */
  get messageRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.problem === undefined)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    // The SDK's fetch keeps connections alive; without this, close() would wait for them to time out.
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req)
    const recorded: RecordedRequest = {
      index: this.requests.length,
      method: req.method ?? '',
      path: req.url ?? '',
      headers: flattenHeaders(req.headers),
      rawBody: rawBody ?? '',
      body: parseJson(rawBody ?? ''),
    }
    this.requests.push(recorded)

    const refusal = this.refusal(recorded, rawBody)
    if (refusal) {
      recorded.problem = refusal.message
      this.problems.push(
        `request #${recorded.index} (${recorded.method} ${recorded.path}): ${refusal.message}`,
      )
      this.send(
        res,
        recorded,
        errorReply(refusal.status, refusal.type, `fake-messages-server: ${refusal.message}`),
      )
      return
    }

    const next = this.queue.shift() ?? this.options.responder
    if (next === undefined) {
      const message = 'unexpected request: no scripted reply left'
      recorded.problem = message
      this.problems.push(`request #${recorded.index} (${recorded.method} ${recorded.path}): ${message}`)
      this.send(res, recorded, errorReply(500, 'api_error', `fake-messages-server: ${message}`))
      return
    }
    let reply = typeof next === 'function' ? next(recorded) : next
    // A responder may hand back a builder (textReply echoes the request's model): resolve it once more.
    if (typeof reply === 'function') reply = reply(recorded)
    this.send(res, recorded, reply)
  }

  private refusal(
    request: RecordedRequest,
    rawBody: string | undefined,
  ): { status: number; type: string; message: string } | undefined {
    if (rawBody === undefined)
      return { status: 413, type: 'request_too_large', message: 'body over the size limit' }
    const path = request.path.split('?')[0]
    if (request.method !== 'POST' || path !== '/v1/messages')
      return { status: 404, type: 'not_found_error', message: 'only POST /v1/messages is served' }
    const key = this.options.apiKey
    if (key !== undefined) {
      const sent = request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '')
      if (sent !== key)
        return { status: 401, type: 'authentication_error', message: 'missing or wrong API key' }
    }
    const parsed = MessagesRequestBody.safeParse(request.body)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : ''
      return {
        status: 400,
        type: 'invalid_request_error',
        message: `invalid body: ${where}${issue?.message ?? 'not JSON'}`,
      }
    }
    return undefined
  }

  private send(res: ServerResponse, request: RecordedRequest, reply: ScriptedReply): void {
    const status = reply.status ?? 200
    request.status = status
    const write = (): void => {
      if (res.destroyed || res.writableEnded) return
      const text = reply.raw ?? JSON.stringify(reply.body ?? {})
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_fake_${request.index}`,
        ...reply.headers,
      })
      res.end(text)
    }
    if (!reply.delayMs) {
      write()
      return
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      write()
    }, reply.delayMs)
    this.timers.add(timer)
    // A client that gave up (an aborted call) must not keep a timer, or the server, alive.
    res.once('close', () => {
      if (!res.writableEnded && !this.closed) request.abandoned = true
      clearTimeout(timer)
      this.timers.delete(timer)
    })
  }
}

// --- reply builders --------------------------------------------------------------------------------------------

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }

export interface UsageCounts {
  input_tokens?: number
  output_tokens?: number
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
}

export interface MessageReplyOptions {
  /** A single text block; ignored when `content` is given. */
  text?: string
  content?: ContentBlock[]
  usage?: UsageCounts
  stopReason?:
    | 'end_turn'
    | 'max_tokens'
    | 'stop_sequence'
    | 'tool_use'
    | 'pause_turn'
    | 'refusal'
    | 'model_context_window_exceeded'
  /** Default: the model the request asked for. */
  model?: string
  headers?: Record<string, string>
  delayMs?: number
}

/** A 200 with a `message` object, the model echoed from the request unless given. */
export function messageReply(options: MessageReplyOptions = {}): Reply {
  return (request) => {
    const requested = (request.body as { model?: unknown } | undefined)?.model
    const content = options.content ?? [{ type: 'text', text: options.text ?? '' }]
    const stopReason =
      options.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn')
    return {
      status: 200,
      body: {
        id: `msg_fake_${request.index}`,
        type: 'message',
        role: 'assistant',
        model: options.model ?? (typeof requested === 'string' ? requested : 'claude-fake'),
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: 10,
          output_tokens: 10,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: null,
          ...options.usage,
        },
      },
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.delayMs ? { delayMs: options.delayMs } : {}),
    }
  }
}

export function textReply(text: string, usage?: UsageCounts): Reply {
  return messageReply({ text, ...(usage ? { usage } : {}) })
}

export function toolUseBlock(
  name: string,
  input: Record<string, unknown>,
  id = `toolu_${name}`,
): ContentBlock {
  return { type: 'tool_use', id, name, input }
}

/** An error in the API's own shape: `{ type: 'error', error: { type, message } }`. */
export function errorReply(
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): ScriptedReply {
  return {
    status,
    body: { type: 'error', error: { type, message } },
    ...(headers ? { headers } : {}),
  }
}

export const replies = {
  /** 429; `retryAfter` is sent as is: seconds (`1`, `0.05`) or an HTTP date. */
  rateLimited: (retryAfter?: string | number): ScriptedReply =>
    errorReply(
      429,
      'rate_limit_error',
      'rate limited',
      retryAfter === undefined ? undefined : { 'retry-after': String(retryAfter) },
    ),
  overloaded: (): ScriptedReply => errorReply(529, 'overloaded_error', 'Overloaded'),
  serverError: (message = 'internal error'): ScriptedReply => errorReply(500, 'api_error', message),
  badRequest: (message = 'bad request'): ScriptedReply => errorReply(400, 'invalid_request_error', message),
  /** A 200 whose body is not JSON, though its content type says it is. */
  malformed: (raw = '<html>bad gateway</html>'): ScriptedReply => ({ status: 200, raw }),
  /** `reply` (by default an empty text message), after `ms`. */
  slow:
    (ms: number, reply: Reply = messageReply()): Reply =>
    (request) => ({ ...(typeof reply === 'function' ? reply(request) : reply), delayMs: ms }),
}

// --- helpers ---------------------------------------------------------------------------------------------------

/** The body as text, or undefined when it is over the size limit. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}
