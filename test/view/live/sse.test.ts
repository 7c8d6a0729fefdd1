// The live events stream over real HTTP on 127.0.0.1: a LiveRuns over a runs folder whose staging folder the test
// writes, served by LiveEventStream, read by a plain node:http EventSource parser.
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { rm } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LiveEventStream, LiveRuns } from '../../../src/view/live/index.ts'
import { pollUntil, tempDir, type TempDir } from '../../e2e/helpers.ts'
import { listenOnLoopback } from '../../support/loopback-server.ts'
import { HandStaging, header } from './live-helpers.ts'
import { openSse, type SseClient } from './sse-client.ts'

let temp: TempDir
let live: LiveRuns
let server: Server | undefined
let stream: LiveEventStream
const clients: SseClient[] = []
const crashes: string[] = []

beforeEach(async () => {
  temp = await tempDir('aeo-live-sse-')
  live = new LiveRuns({ runsDir: temp.path, pollMs: 50, coalesceMs: 20 })
})
afterEach(async () => {
  for (const client of clients.splice(0)) client.close()
  stream?.closeAll()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
  await live.stop()
  await temp.remove()
  expect(crashes).toEqual([])
})

async function serve(options: ConstructorParameters<typeof LiveEventStream>[1] = {}): Promise<string> {
  stream = new LiveEventStream(live, options)
  server = await listenOnLoopback(
    async (req, res) => stream.serve(req, res),
    (p) => crashes.push(p),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/events`
}

async function connect(url: string): Promise<SseClient> {
  const client = await openSse(url)
  clients.push(client)
  return client
}

describe('live events over HTTP (EventSource)', () => {
  it('sends the snapshot of runs live now, then their events as they happen, each with an id', async () => {
    const staging = new HandStaging(temp.path, 'run-a')
    await staging.writeHeader(header('run-a'))
    await staging.trial({ taskId: 'a', passed: true }, 'run-a')
    await live.start()
    const client = await connect(await serve({ retryMs: 1234 }))
    expect(client.status).toBe(200)
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(client.headers['cache-control']).toMatch(/no-cache/)
    expect(client.headers['x-accel-buffering']).toBe('no')

    // Connected mid-run: the run is there at once, with its counts so far.
    const started = await client.waitFor((e) => e.type === 'run-started', 'the snapshot')
    expect(started).toMatchObject({ type: 'run-started', run: { runId: 'run-a', trials: 1, passed: 1 } })
    await staging.trial({ taskId: 'b', passed: false }, 'run-a')
    await client.waitFor((e) => e.type === 'run-progress' && e.run.trials === 2, 'progress')
    await rm(staging.dir, { recursive: true })
    const ended = await client.waitFor((e) => e.type === 'run-ended', 'run-ended')
    expect(ended).toMatchObject({ run: { runId: 'run-a', trials: 2, passed: 1 } })

    expect(client.messages[0]).toEqual({ id: null, data: '', retry: 1234 })
    const ids = client.messages.slice(1).map((m) => Number(m.id))
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true)
    expect(ids, 'ids rise').toEqual([...ids].sort((x, y) => x - y))
    expect(new Set(ids).size).toBe(ids.length)
    expect(client.events().map((e) => e.type)).toEqual(['run-started', 'run-progress', 'run-ended'])
  })

  it('keeps a quiet stream open with heartbeat comments', async () => {
    await live.start()
    const client = await connect(await serve({ heartbeatMs: 30 }))
    expect(await client.waitForComment('a heartbeat')).toBe('heartbeat')
    expect(client.events()).toEqual([])
  })

  it('cleans up when the client goes: its listener and its slot are released', async () => {
    await live.start()
    const url = await serve()
    const first = await connect(url)
    const second = await connect(url)
    await pollUntil(async () => (live.listenerCount === 2 ? true : undefined), {
      timeoutMs: 5_000,
      describe: () => `2 listeners, have ${live.listenerCount}`,
    })
    expect(stream.clients).toBe(2)
    first.close()
    second.close()
    await pollUntil(async () => (live.listenerCount === 0 && stream.clients === 0 ? true : undefined), {
      timeoutMs: 5_000,
      describe: () => `no listener left, have ${live.listenerCount} (${stream.clients} clients)`,
    })
  })

  it('refuses a client beyond the limit with a 503 that says what to do, and takes one again after a close', async () => {
    await live.start()
    const url = await serve({ maxClients: 2 })
    const first = await connect(url)
    await connect(url)
    const third = await connect(url)
    expect(third.status).toBe(503)
    await third.ended
    expect(third.body()).toMatch(/Too many live views open \(2\): close another view tab/)
    expect(live.listenerCount).toBe(2)

    first.close()
    await pollUntil(async () => (stream.clients === 1 ? true : undefined), {
      timeoutMs: 5_000,
      describe: () => `one client left, have ${stream.clients}`,
    })
    const again = await connect(url)
    expect(again.status).toBe(200)
  })

  it('answers only GET (and HEAD)', async () => {
    await live.start()
    const url = await serve()
    const response = await fetch(url, { method: 'POST' })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, HEAD')
    expect(live.listenerCount).toBe(0)
  })
})
