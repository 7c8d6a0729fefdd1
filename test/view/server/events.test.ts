// The events stream's catalog part: `runs-changed` when a bundle appears in the watched runs folder outside a live run.
import { request } from 'node:http'
import { mkdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startViewServer, type ViewServer } from '../../../src/view/server/index.ts'
import { tempDir } from '../../bundles/fixtures.ts'
import { addBundle } from './helpers.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let runsDir: string
let server: ViewServer

beforeAll(async () => {
  work = await tempDir('aeo-view-events-')
  runsDir = join(work.path, 'view-runs')
  await mkdir(runsDir)
  server = await startViewServer({ runsDir, port: 0 })
}, 60_000)
afterAll(async () => {
  await server?.close()
  await work?.remove()
})

it('sends runs-changed on the event stream when a bundle is sealed into the runs folder', async () => {
  const received: string[] = []
  let sawRetry!: () => void
  const opened = new Promise<void>((resolve) => (sawRetry = resolve))
  let changed!: () => void
  const gotChange = new Promise<void>((resolve) => (changed = resolve))
  const req = request({ host: '127.0.0.1', port: server.port, path: '/api/events' }, (res) => {
    expect(res.headers['content-type']).toContain('text/event-stream')
    res.setEncoding('utf8')
    res.on('data', (chunk: string) => {
      received.push(chunk)
      const text = received.join('')
      if (text.includes('retry:')) sawRetry()
      if (text.includes('"runs-changed"')) changed()
    })
  })
  req.end()
  try {
    await opened
    const staged = join(work.path, 'staged')
    await mkdir(staged)
    await addBundle(staged, work.path, '0190f5a0-0000-7000-8000-0000000000e1')
    await rename(
      join(staged, '0190f5a0-0000-7000-8000-0000000000e1'),
      join(runsDir, '0190f5a0-0000-7000-8000-0000000000e1'),
    )
    // Bounded by the test's timeout: the watch settles within tens of milliseconds.
    await gotChange
    expect(received.join('')).toMatch(/^id: 1\ndata: \{"type":"runs-changed"\}$/m)
  } finally {
    req.destroy()
  }
}, 20_000)
