import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TracePrefetch } from '../../reporters/trace-prefetch.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-prefetch-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('TracePrefetch', () => {
  it('hands over the text it read early, even when the file has changed since', async () => {
    const file = join(dir, 'a.jsonl')
    await writeFile(file, 'early\n')
    const prefetch = new TracePrefetch()
    prefetch.add(file)
    await new Promise((resolve) => setTimeout(resolve, 20))
    await writeFile(file, 'late\n')
    expect(await prefetch.read(file)).toBe('early\n')
    // Handed out once: a second read goes to the file.
    expect(await prefetch.read(file)).toBe('late\n')
  })

  it('stops reading ahead past its memory budget and reads the rest when asked', async () => {
    const files = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const file = join(dir, `${i}.jsonl`)
        await writeFile(file, `${'x'.repeat(100)}${i}\n`)
        return file
      }),
    )
    const prefetch = new TracePrefetch(150)
    prefetch.add(files[0]!)
    await new Promise((resolve) => setTimeout(resolve, 20))
    prefetch.add(files[1]!)
    await new Promise((resolve) => setTimeout(resolve, 20))
    prefetch.add(files[2]!)
    for (const file of files) await writeFile(file, 'rewritten\n')
    // The first two were read (the budget was not yet spent when each was added); the third was not.
    expect(await prefetch.read(files[0]!)).toMatch(/0\n$/)
    expect(await prefetch.read(files[1]!)).toMatch(/1\n$/)
    expect(await prefetch.read(files[2]!)).toBe('rewritten\n')
  })

  it('falls back to reading the file when the early read failed', async () => {
    const file = join(dir, 'late.jsonl')
    const prefetch = new TracePrefetch()
    prefetch.add(file)
    await new Promise((resolve) => setTimeout(resolve, 20))
    await writeFile(file, 'now there\n')
    expect(await prefetch.read(file)).toBe('now there\n')
  })
})
