import { closeSync, openSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { readRanges } from '../../reporters/range-reads.ts'
import { tempDir } from '../bundles/fixtures.ts'

const fs = vi.hoisted(() => ({ reads: 0 }))
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>()
  return {
    ...real,
    readSync: (...args: Parameters<typeof real.readSync>) => {
      fs.reads++
      return real.readSync(...args)
    },
  }
})

/** A file of `size` bytes whose byte at i is i mod 251, so any slice tells where it came from. */
async function withFile(size: number, body: (fd: number, bytes: Buffer) => void): Promise<void> {
  const dir = await tempDir('aeo-ranges-')
  const path = join(dir.path, 'data')
  const bytes = Buffer.from(Array.from({ length: size }, (_, i) => i % 251))
  writeFileSync(path, bytes)
  const fd = openSync(path, 'r')
  try {
    body(fd, bytes)
  } finally {
    closeSync(fd)
    await dir.remove()
  }
}

describe('readRanges', () => {
  it('gives each range its own bytes in the order asked, whatever their order in the file', async () => {
    await withFile(200_000, (fd, bytes) => {
      const ranges = [
        { offset: 150_000, length: 10 },
        { offset: 0, length: 3 },
        { offset: 100, length: 0 },
        { offset: 50_000, length: 40_000 },
        { offset: 3, length: 7 },
        { offset: 150_005, length: 20 },
      ]
      const got = readRanges(fd, ranges, 'data')
      expect(got.map((b) => [...b])).toEqual(
        ranges.map((r) => [...bytes.subarray(r.offset, r.offset + r.length)]),
      )
    })
  })

  it('reads ranges that lie close together as one, and far ones apart', async () => {
    await withFile(1_000_000, (fd) => {
      fs.reads = 0
      // Three neighbours within a few KB, then one half a MB away.
      readRanges(
        fd,
        [
          { offset: 8_000, length: 100 },
          { offset: 0, length: 100 },
          { offset: 500_000, length: 100 },
          { offset: 4_000, length: 100 },
        ],
        'data',
      )
      expect(fs.reads).toBe(2)
    })
  })

  it('says which file ended early when a range runs past its end', async () => {
    await withFile(1000, (fd) => {
      expect(() => readRanges(fd, [{ offset: 900, length: 200 }], 'records of the fold')).toThrow(
        'records of the fold ends before byte 1000',
      )
    })
  })
})
