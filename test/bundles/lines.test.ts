// readLines against the obvious reference (split the whole file on newline bytes): the same lines, the same
// UTF-8 verdicts and the same over-long lines, wherever the 256 KiB chunks happen to cut the file.
import { isUtf8 } from 'node:buffer'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeFile, openBundleFile } from '../../src/bundles/bundle-file.ts'
import { readLines, type Line } from '../../src/bundles/lines.ts'
import { tempDir } from './fixtures.ts'

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('aeo-lines-')
})
afterAll(async () => work.remove())

function reference(bytes: Buffer, maxLineBytes: number): Line[] {
  const lines: Line[] = []
  let start = 0
  const push = (end: number) => {
    const line = bytes.subarray(start, end)
    const number = lines.length + 1
    lines.push(
      line.length > maxLineBytes
        ? { number, tooLong: true, bytes: line.length }
        : { number, text: line.toString('utf8'), utf8: isUtf8(line) },
    )
  }
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    push(newline)
    start = newline + 1
  }
  if (start < bytes.length) push(bytes.length)
  return lines
}

async function read(bytes: Buffer, maxLineBytes: number): Promise<{ lines: Line[]; seen: number }> {
  const path = join(work.path, 'lines.jsonl')
  await writeFile(path, bytes)
  const opened = await openBundleFile(path)
  if (!opened.ok) throw new Error(opened.problem)
  const lines: Line[] = []
  let seen = 0
  try {
    await readLines(opened, (line) => lines.push(line), {
      maxLineBytes,
      onChunk: (chunk) => (seen += chunk.length),
    })
  } finally {
    await closeFile(opened.fd)
  }
  return { lines, seen }
}

const piece = fc.oneof(
  fc.constantFrom('\n', '\r\n', '{"a":1}', 'é', '→', '😀', '\n\n'),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
  // Long runs, so that lines cross the chunk boundaries and pass the line limit.
  fc
    .tuple(fc.constantFrom('x', 'é', '😀'), fc.integer({ min: 1, max: 200_000 }))
    .map(([c, n]) => c.repeat(n)),
)

describe('readLines', () => {
  it('yields what splitting the whole file would, across chunk boundaries and over-long lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 30 }),
        fc.constantFrom(100, 300_000, 16 * 1024 * 1024),
        async (pieces, maxLineBytes) => {
          const bytes = Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))
          const { lines, seen } = await read(bytes, maxLineBytes)
          expect(lines).toEqual(reference(bytes, maxLineBytes))
          expect(seen).toBe(bytes.length)
        },
      ),
      { numRuns: 150, seed: 7 },
    )
  })

  it('holds no more than one over-long line: a 40 MiB line is counted, not kept', async () => {
    const bytes = Buffer.alloc(40 * 1024 * 1024, 0x61)
    const { lines } = await read(
      Buffer.concat([Buffer.from('{}\n'), bytes, Buffer.from('\n{}')]),
      1024 * 1024,
    )
    expect(lines).toEqual([
      { number: 1, text: '{}', utf8: true },
      { number: 2, tooLong: true, bytes: bytes.length },
      { number: 3, text: '{}', utf8: true },
    ])
  })
})
