import type { IncomingMessage, ServerResponse } from 'node:http'
import type { LiveEvent } from '../api.ts'
import type { LiveEventSource } from './live-runs.ts'

export interface LiveEventStreamOptions {
  /** Streams open at once; one more is answered 503. Default 32. */
  maxClients?: number
  /** A comment line this often keeps proxies and idle timeouts from closing a quiet stream. Default 15 s. */
  heartbeatMs?: number
  /** The reconnect delay the browser is told (`retry:`). Default 2 s. */
  retryMs?: number
  /**
   * A client that reads slower than events come (its unsent bytes pass this) is closed rather than buffered
   * without end; its EventSource reconnects and starts again from the snapshot. Default 4 MiB.
   */
  maxBufferedBytes?: number
  /** Headers every answer carries besides the stream's own (the server's security headers). */
  headers?: Record<string, string>
}

/**
 * Server-sent events (an EventSource stream) of a LiveEventSource over node:http: on connect the snapshot (a
 * run-started for every run live now, so a client that connects mid-run sees it), then one `data:` JSON line per
 * event, each with an `id:`; a heartbeat comment; cleanup when the client goes. Bounded in clients and in what a
 * slow client may hold back.
 */
export class LiveEventStream {
  private readonly open = new Set<() => void>()
  private readonly maxClients: number
  private readonly heartbeatMs: number
  private readonly retryMs: number
  private readonly maxBufferedBytes: number
  private readonly headers: Record<string, string>
  private nextId = 1

  constructor(
    private readonly source: LiveEventSource,
    options: LiveEventStreamOptions = {},
  ) {
    this.maxClients = options.maxClients ?? 32
    this.heartbeatMs = options.heartbeatMs ?? 15_000
    this.retryMs = options.retryMs ?? 2_000
    this.maxBufferedBytes = options.maxBufferedBytes ?? 4 * 1024 * 1024
    this.headers = options.headers ?? {}
  }

  /** Streams open now. */
  get clients(): number {
    return this.open.size
  }

  /** Answers one request of the events route. */
  serve(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...this.headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
      res.end('The live events stream is read with GET (an EventSource).\n')
      return
    }
    if (this.open.size >= this.maxClients) {
      res.writeHead(503, {
        ...this.headers,
        'Content-Type': 'text/plain; charset=utf-8',
        'Retry-After': '10',
      })
      res.end(
        `Too many live views open (${this.maxClients}): close another view tab or window, then reload this one.\n`,
      )
      return
    }
    res.writeHead(200, {
      ...this.headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    })
    if (req.method === 'HEAD') {
      res.end()
      return
    }
    // A stream is idle between events for as long as no run goes: no socket timeout may end it.
    req.socket.setTimeout(0)
    req.socket.setNoDelay(true)

    let closed = false
    const send = (text: string): void => {
      if (closed) return
      res.write(text)
      if (res.writableLength > this.maxBufferedBytes) close()
    }
    const sendEvent = (event: LiveEvent): void =>
      send(`id: ${this.nextId++}\ndata: ${JSON.stringify(event)}\n\n`)
    // The source emits from its scans, never synchronously: nothing falls between this and the snapshot below.
    const unsubscribe = this.source.subscribe(sendEvent)
    const heartbeat = setInterval(() => send(': heartbeat\n\n'), this.heartbeatMs)
    heartbeat.unref()
    const close = (): void => {
      if (closed) return
      closed = true
      unsubscribe()
      clearInterval(heartbeat)
      this.open.delete(close)
      if (!res.writableEnded) res.end()
    }
    this.open.add(close)
    res.on('close', close)
    res.on('error', close)

    send(`retry: ${this.retryMs}\n\n`)
    for (const event of this.source.snapshot()) sendEvent(event)
  }

  /** Ends every open stream (the server is stopping). */
  closeAll(): void {
    for (const close of [...this.open]) close()
  }
}
