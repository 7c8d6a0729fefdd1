// A plain node:http client of an EventSource stream, parsing it as the browser's EventSource does (fields
// `id`, `data`, `retry`, comment lines, a blank line ends a message), for the tests to read what a view would.
import { get, type IncomingHttpHeaders, type ClientRequest } from 'node:http'
import type { LiveEvent } from '../../../src/view/api.ts'
import { pollUntil } from '../../e2e/helpers.ts'

export interface SseMessage {
  id: string | null
  data: string
  retry: number | null
}

export interface SseClient {
  status: number
  headers: IncomingHttpHeaders
  /** The body as received, for responses that are not a stream (a 503's message). */
  body(): string
  messages: SseMessage[]
  comments: string[]
  /** The `data:` of every message, parsed. */
  events(): LiveEvent[]
  waitFor(match: (event: LiveEvent) => boolean, what: string, timeoutMs?: number): Promise<LiveEvent>
  waitForComment(what: string, timeoutMs?: number): Promise<string>
  /** Resolves when the server ended the response. */
  ended: Promise<void>
  close(): void
}

export function openSse(url: string): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    let request: ClientRequest | undefined = undefined
    request = get(url, { headers: { Accept: 'text/event-stream' } }, (res) => {
      let text = ''
      let pending = ''
      const messages: SseMessage[] = []
      const comments: string[] = []
      const ended = new Promise<void>((done) => {
        res.once('end', done)
        res.once('close', done)
      })
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk
        pending += chunk
        let cut: number
        while ((cut = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, cut)
          pending = pending.slice(cut + 2)
          const message: SseMessage = { id: null, data: '', retry: null }
          let isMessage = false
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              comments.push(line.slice(1).trim())
              continue
            }
            const colon = line.indexOf(':')
            const field = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (field === 'id') message.id = value
            else if (field === 'retry') message.retry = Number(value)
            else if (field === 'data') {
              message.data = message.data === '' ? value : `${message.data}\n${value}`
              isMessage = true
            }
            if (field === 'retry' || field === 'id') isMessage = true
          }
          if (isMessage) messages.push(message)
        }
      })
      const events = (): LiveEvent[] =>
        messages.filter((m) => m.data !== '').map((m) => JSON.parse(m.data) as LiveEvent)
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: () => text,
        messages,
        comments,
        events,
        waitFor: (match, what, timeoutMs = 10_000) =>
          pollUntil(async () => events().find(match), {
            timeoutMs,
            intervalMs: 20,
            describe: () => `${what}; stream so far: ${text.slice(-2000)}`,
          }),
        waitForComment: (what, timeoutMs = 10_000) =>
          pollUntil(async () => comments[0], { timeoutMs, intervalMs: 20, describe: () => what }),
        ended,
        close: () => request?.destroy(),
      })
    })
    request.on('error', reject)
  })
}
