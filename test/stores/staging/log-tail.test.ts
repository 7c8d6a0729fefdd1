import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workerLogPath } from '../../../src/core/index.ts'
import { LogTail, workerLogPaths } from '../../../src/stores/index.ts'
import { tempDir } from '../../bundles/fixtures.ts'
import { planEvent } from '../fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
beforeEach(async () => {
  work = await tempDir('aeo-logtail-')
})
afterEach(async () => {
  await work.remove()
})

const line = (step: number) => `${JSON.stringify({ event: planEvent(step) })}\n`

describe('LogTail', () => {
  it('returns each complete line once, in order, and keeps a torn tail for the next read', async () => {
    const path = join(work.path, 'w.jsonl')
    const tail = new LogTail(path)
    // Not created yet: nothing to read, and no error.
    expect(await tail.read()).toEqual([])
    const torn = line(1)
    await writeFile(path, line(0) + torn.slice(0, 10))
    expect(await tail.read()).toEqual([{ event: planEvent(0) }])
    expect(await tail.read()).toEqual([])
    await appendFile(path, torn.slice(10) + line(2))
    expect(await tail.read()).toEqual([{ event: planEvent(1) }, { event: planEvent(2) }])
    expect(tail.bytesRead).toBe(Buffer.byteLength(line(0) + line(1) + line(2)))
    await tail.close()
  })

  it("hands out each line's text beside its value with readWithText, the torn tail held back as by read", async () => {
    const path = join(work.path, 'w.jsonl')
    const tail = new LogTail(path)
    const spaced = `{ "event" : ${JSON.stringify(planEvent(1))} }`
    await writeFile(path, `${line(0)}${spaced}\nnot json\n${line(2).slice(0, 7)}`)
    const read = await tail.readWithText()
    expect(read.lines).toEqual([{ event: planEvent(0) }, { event: planEvent(1) }])
    expect(read.texts).toEqual([line(0).slice(0, -1), spaced])
    expect(tail.damaged).toBe(1)
    await appendFile(path, line(2).slice(7))
    expect(await tail.readWithText()).toEqual({
      lines: [{ event: planEvent(2) }],
      texts: [line(2).slice(0, -1)],
    })
    await tail.close()
  })

  it('cuts lines on bytes without splitting a multi-byte character, across reads larger than one chunk', async () => {
    const path = join(work.path, 'w.jsonl')
    const text = (i: number) => `${'é🙂'.repeat(5000)} ${i}`
    const lines = Array.from({ length: 80 }, (_, i) => ({ event: planEvent(i, 'task-1', text(i)) }))
    const all = lines.map((l) => `${JSON.stringify(l)}\n`).join('')
    expect(Buffer.byteLength(all)).toBeGreaterThan(2 * 1024 * 1024)
    const tail = new LogTail(path)
    // Written in two pieces cut at an arbitrary byte: the first read ends mid-line, maybe mid-character.
    const bytes = Buffer.from(all)
    const cut = Math.floor(bytes.length / 3) + 1
    await writeFile(path, bytes.subarray(0, cut))
    const first = await tail.read()
    await appendFile(path, bytes.subarray(cut))
    const second = await tail.read()
    expect([...first, ...second]).toEqual(lines)
    expect(first.length).toBeGreaterThan(0)
    await tail.close()
  })

  it('serves concurrent reads one after another, so no line is returned twice', async () => {
    const path = join(work.path, 'w.jsonl')
    await writeFile(path, line(0) + line(1))
    const tail = new LogTail(path)
    const [a, b] = await Promise.all([tail.read(), tail.read()])
    expect([...a, ...b]).toEqual([{ event: planEvent(0) }, { event: planEvent(1) }])
    await tail.close()
  })

  it('skips and counts a complete line that is not JSON, and reads on', async () => {
    const path = join(work.path, 'w.jsonl')
    await writeFile(path, `${line(0)}{not json\n${line(1)}`)
    const tail = new LogTail(path)
    expect(await tail.read()).toEqual([{ event: planEvent(0) }, { event: planEvent(1) }])
    expect(tail.damaged).toBe(1)
    await tail.close()
  })
})

describe('workerLogPaths', () => {
  it('lists the worker logs of a staging folder, sorted, and none before logs/ exists', async () => {
    expect(await workerLogPaths(work.path)).toEqual([])
    const b = workerLogPath(work.path, 20, 3)
    const a = workerLogPath(work.path, 10, 0)
    await mkdir(join(work.path, 'logs'), { recursive: true })
    await writeFile(b, '')
    await writeFile(a, '')
    await writeFile(join(work.path, 'logs', 'notes.txt'), '')
    expect(await workerLogPaths(work.path)).toEqual([a, b])
    expect(a).toBe(join(work.path, 'logs', '10-0.jsonl'))
  })
})
