import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/**
 * An HTTP server listening on 127.0.0.1 on a free port, the one address our network tests may use. A handler that
 * throws is answered with a 500 and reported through `onCrash`, so the test sees it instead of a hung request.
 */
export async function listenOnLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onCrash: (problem: string) => void,
): Promise<Server> {
  const server = createServer()
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((e: unknown) => {
      onCrash(`fake server crashed: ${String(e)}`)
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  return server
}
