import { mkdtemp, open, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { JsonlTraceStore, readTraceFile } from '../../src/stores/index.ts'
import { planEvent } from './fixtures.ts'

let root: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aeo-jsonl-'))
})

afterEach(async () => {
  vi.restoreAllMocks()
  await rm(root, { recursive: true, force: true })
})

/** The prototype every FileHandle shares, so spies see the store's own handles. */
async function fileHandlePrototype(): Promise<{ write: () => unknown; datasync: () => Promise<void> }> {
  const handle = await open(join(root, 'probe'), 'w')
  await handle.close()
  return Object.getPrototypeOf(handle) as { write: () => unknown; datasync: () => Promise<void> }
}

describe('JsonlTraceStore', () => {
  it('writes one JSON line per event to a file under root and reads it back', async () => {
    const store = new JsonlTraceStore(join(root, 'nested', 'traces'))
    const writer = store.open({ taskId: 'HumanEval/0', trial: 1 })
    const events = [0, 1, 2].map((s) => planEvent(s, 'HumanEval/0'))
    for (const e of events) await writer.append(e)
    await writer.finalize()

    expect(writer.path).not.toContain('/')
    const text = await readFile(join(root, 'nested', 'traces', writer.path), 'utf8')
    expect(text.split('\n')).toEqual([...events.map((e) => JSON.stringify(e)), ''])
    expect(await store.read(writer.path)).toEqual(events)
  })

  it('keeps every one of many concurrent appends, in call order', async () => {
    const writer = new JsonlTraceStore(root).open({ taskId: 't', trial: 0 })
    const appends: Promise<void>[] = []
    for (let step = 0; step < 500; step++) {
      appends.push(writer.append(planEvent(step, 't')))
      // Interleave with the event loop so appends land both before and during writes.
      if (step % 37 === 0) await new Promise((r) => setImmediate(r))
    }
    await Promise.all(appends)
    await writer.finalize()
    const read = await new JsonlTraceStore(root).read(writer.path)
    expect(read.map((e) => e.step)).toEqual(Array.from({ length: 500 }, (_, i) => i))
    expect(writer.stats.appends).toBe(500)
    expect(writer.stats.commits).toBeLessThan(500)
  })

  it('batches the appends that arrive during a write + fsync into one next commit', async () => {
    const proto = await fileHandlePrototype()
    const realDatasync = proto.datasync
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const datasync = vi.spyOn(proto, 'datasync').mockImplementation(async function (this: unknown) {
      await gate
      return realDatasync.call(this)
    })
    const write = vi.spyOn(proto, 'write')

    const writer = new JsonlTraceStore(root).open({ taskId: 't', trial: 0 })
    const first = writer.append(planEvent(0, 't'))
    // The first commit is now held inside its fsync; everything appended meanwhile must wait for one more.
    await vi.waitFor(() => expect(datasync).toHaveBeenCalledTimes(1), { timeout: 5_000, interval: 5 })
    const rest = Array.from({ length: 20 }, (_, i) => writer.append(planEvent(i + 1, 't')))
    let firstDone = false
    void first.then(() => (firstDone = true))
    await new Promise((r) => setTimeout(r, 20))
    expect(firstDone).toBe(false)
    release()
    await Promise.all([first, ...rest])
    await writer.finalize()

    expect(writer.stats).toMatchObject({ appends: 21, commits: 2 })
    expect(datasync).toHaveBeenCalledTimes(2)
    expect(write).toHaveBeenCalledTimes(2)
    expect((await new JsonlTraceStore(root).read(writer.path)).length).toBe(21)
  })

  it('batches a synchronous burst into a single commit', async () => {
    const writer = new JsonlTraceStore(root).open({ taskId: 't', trial: 0 })
    await Promise.all(Array.from({ length: 100 }, (_, i) => writer.append(planEvent(i, 't'))))
    expect(writer.stats.commits).toBe(1)
    await writer.finalize()
  })

  it('has each awaited append on disk before the next one starts', async () => {
    const writer = new JsonlTraceStore(root).open({ taskId: 't', trial: 0 })
    for (let step = 0; step < 3; step++) {
      await writer.append(planEvent(step, 't'))
      const lines = (await readFile(join(root, writer.path), 'utf8')).split('\n').filter(Boolean)
      expect(lines.length).toBe(step + 1)
    }
    expect(writer.stats.commits).toBe(3)
    await writer.finalize()
  })

  it('refuses appends after finalize with TRACE_STORE_CLOSED', async () => {
    const writer = new JsonlTraceStore(root).open({ taskId: 't', trial: 0 })
    await writer.append(planEvent(0, 't'))
    await writer.finalize()
    await writer.finalize() // idempotent
    let caught: unknown
    try {
      void writer.append(planEvent(1, 't'))
    } catch (e) {
      caught = e
    }
    expect(isAgentEvalOpsError(caught, 'TRACE_STORE_CLOSED')).toBe(true)
  })

  it('flushes pending appends on finalize, even when nobody awaited them', async () => {
    const writer = new JsonlTraceStore(root).open({ taskId: 't', trial: 0 })
    for (let step = 0; step < 10; step++) void writer.append(planEvent(step, 't'))
    await writer.finalize()
    expect((await readTraceFile(join(root, writer.path))).events.length).toBe(10)
  })

  it('creates an empty trace file when finalized without events, and no file before that', async () => {
    const writer = new JsonlTraceStore(root).open({ taskId: 'empty', trial: 0 })
    expect(await readdir(root)).not.toContain(writer.path)
    await writer.finalize()
    expect(await new JsonlTraceStore(root).read(writer.path)).toEqual([])
  })

  it('starts a fresh file when the same trial is opened again (a rerun)', async () => {
    const store = new JsonlTraceStore(root)
    const first = store.open({ taskId: 't', trial: 0 })
    await first.append(planEvent(0, 't'))
    await first.append(planEvent(1, 't'))
    await first.finalize()
    const again = store.open({ taskId: 't', trial: 0 })
    await again.append(planEvent(0, 't', 'rerun'))
    await again.finalize()
    expect(await store.read(again.path)).toEqual([planEvent(0, 't', 'rerun')])
  })

  it('fails appends and finalize with INFRA_FAILURE when the file cannot be written', async () => {
    await writeFile(join(root, 'not-a-dir'), '')
    const writer = new JsonlTraceStore(join(root, 'not-a-dir', 'traces')).open({ taskId: 't', trial: 0 })
    const append = writer.append(planEvent(0, 't'))
    await expect(append).rejects.toMatchObject({ code: 'INFRA_FAILURE' })
    await expect(writer.finalize()).rejects.toMatchObject({ code: 'INFRA_FAILURE' })
  })
})

describe('readTraceFile', () => {
  it('names file and line of an invalid event', async () => {
    const file = join(root, 'bad.jsonl')
    const good = JSON.stringify(planEvent(0))
    const bad = JSON.stringify({ ...planEvent(1), kind: 'agent.nonsense' })
    await writeFile(file, `${good}\n${bad}\n`)
    await expect(readTraceFile(file)).rejects.toMatchObject({
      code: 'TRACE_INVALID',
      message: expect.stringContaining(`${file}:2:`) as string,
    })
    await expect(new JsonlTraceStore(root).read('bad.jsonl')).rejects.toMatchObject({
      code: 'TRACE_INVALID',
      message: expect.stringMatching(/^bad\.jsonl:2: /) as string,
    })
  })

  it('rejects a broken line in the middle even when tolerating a truncated tail', async () => {
    const file = join(root, 'mid.jsonl')
    await writeFile(file, `${JSON.stringify(planEvent(0))}\n{"runId":\n${JSON.stringify(planEvent(2))}\n`)
    await expect(readTraceFile(file, { tolerateTruncatedTail: true })).rejects.toMatchObject({
      code: 'TRACE_INVALID',
      message: expect.stringContaining(':2:') as string,
    })
  })

  it('reports a truncated last line distinctly, and can recover the events before it', async () => {
    const file = join(root, 'cut.jsonl')
    const full = JSON.stringify(planEvent(1))
    await writeFile(file, `${JSON.stringify(planEvent(0))}\n${full.slice(0, full.length - 7)}`)
    await expect(readTraceFile(file)).rejects.toMatchObject({
      code: 'TRACE_INVALID',
      message: expect.stringMatching(/:2: truncated last line/) as string,
    })
    const recovered = await readTraceFile(file, { tolerateTruncatedTail: true })
    expect(recovered.truncatedTail).toBe(true)
    expect(recovered.events).toEqual([planEvent(0)])
  })

  it('accepts a complete last event that merely lacks its newline', async () => {
    const file = join(root, 'no-newline.jsonl')
    await writeFile(file, `${JSON.stringify(planEvent(0))}\n${JSON.stringify(planEvent(1))}`)
    expect(await readTraceFile(file)).toEqual({ events: [planEvent(0), planEvent(1)], truncatedTail: false })
  })

  it('turns a missing file into TRACE_INVALID', async () => {
    await expect(readTraceFile(join(root, 'missing.jsonl'))).rejects.toMatchObject({ code: 'TRACE_INVALID' })
  })
})

describe('JsonlTraceStore commit window', () => {
  it('lets appends a few milliseconds apart share one write + fsync', async () => {
    const writer = new JsonlTraceStore(root, { commitDelayMs: 200 }).open({ taskId: 't', trial: 0 })
    const first = writer.append(planEvent(0, 't'))
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = writer.append(planEvent(1, 't'))
    await Promise.all([first, second])
    expect(writer.stats).toMatchObject({ appends: 2, commits: 1 })
    await writer.finalize()
    expect((await readTraceFile(join(root, writer.path))).events.map((e) => e.step)).toEqual([0, 1])
  })

  it('does not make finalize() wait for the window: it commits at once', async () => {
    const writer = new JsonlTraceStore(root, { commitDelayMs: 60_000 }).open({ taskId: 't', trial: 0 })
    const appended = writer.append(planEvent(0, 't'))
    const order: string[] = []
    const window = new Promise<void>((resolve) => setTimeout(resolve, 2_000)).then(() => order.push('window'))
    await writer.finalize().then(() => order.push('finalized'))
    await appended
    expect(order).toEqual(['finalized'])
    expect(writer.stats.commits).toBe(1)
    expect((await readTraceFile(join(root, writer.path))).events).toHaveLength(1)
    void window
  })
})
