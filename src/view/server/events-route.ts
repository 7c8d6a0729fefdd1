import type { IncomingMessage, ServerResponse } from 'node:http'
import type { LiveEvent } from '../api.ts'
import type { Catalog } from '../catalog/index.ts'

/** Streams open at once: each holds a socket; a browser tab holds one. */
const MAX_STREAMS = 32
const HEARTBEAT_MS = 15_000

/**
 * The events stream, for now the catalog's only: `runs-changed` when a re-scan changed the list (a bundle sealed,
 * copied in or removed). The live view's events (src/view/live) join it when it is wired in.
 */
export class CatalogEvents {
  private readonly streams = new Set<ServerResponse>()

  constructor(private readonly catalog: Catalog) {}

  serve(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
    if (this.streams.size >= MAX_STREAMS) {
      res.writeHead(503, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '5' })
      res.end(`too many event streams open (${MAX_STREAMS}); close a tab of agentevalops view\n`)
      return
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
    })
    res.write('retry: 2000\n\n')
    let id = 0
    const send = (event: LiveEvent) => res.write(`id: ${++id}\ndata: ${JSON.stringify(event)}\n\n`)
    const unsubscribe = this.catalog.onChange(() => send({ type: 'runs-changed' }))
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS)
    heartbeat.unref()
    this.streams.add(res)
    const done = () => {
      clearInterval(heartbeat)
      unsubscribe()
      this.streams.delete(res)
    }
    req.on('close', done)
    res.on('close', done)
  }

  /** Ends every open stream (the server is stopping). */
  close(): void {
    for (const res of this.streams) res.end()
    this.streams.clear()
  }
}
