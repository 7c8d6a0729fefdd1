// The fast path of validate-bundle gives the findings the zod path gives, bundle by bundle: damaged bundles (the
// fuzz test's JSON and byte edits to traces.jsonl and spans.jsonl, the manifest re-stamped so that every check runs)
// are validated once as shipped, and once with the hand-written shape tests and the one-walk plainness test switched
// off (each then always says "not sure", so every line goes through zod, deeperThan and nonFinitePath as before).
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { derivedRunFiles } from '../../reporters/derived-files.ts'
import { validateBundle, writeBundle, type Finding } from '../../src/bundles/index.ts'
import { bundleInput, copyBundle, restampManifest, tempDir } from './fixtures.ts'
import { applyEdits, byteEdit, jsonEdit } from './mutations.ts'

const SEED = 20_251_202
const BUNDLES = 150
const FILES = ['traces.jsonl', 'spans.jsonl'] as const

let work: Awaited<ReturnType<typeof tempDir>>
let original: string

beforeAll(async () => {
  work = await tempDir('aeo-fast-findings-')
  const input = await bundleInput(join(work.path, 'bundle'))
  const derived = derivedRunFiles(
    { metadata: input.metadata, trials: input.trials, summary: input.summary },
    {},
  )
  original = await writeBundle({ ...input, derivedFiles: derived.derivedFiles })
})
afterAll(async () => work.remove())

const damage = fc.array(
  fc.record({
    file: fc.constantFrom(...FILES),
    edits: fc.array(fc.oneof({ weight: 4, arbitrary: jsonEdit }, { weight: 1, arbitrary: byteEdit }), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
  { minLength: 1, maxLength: 2 },
)

/** The damaged bundles, written once, so that both validators read the very same bytes. */
async function damagedBundles(): Promise<string[]> {
  const samples = fc.sample(damage, { numRuns: BUNDLES, seed: SEED })
  const dirs: string[] = []
  for (const [i, edits] of samples.entries()) {
    const dir = await copyBundle(original, join(work.path, `damaged-${i}`))
    for (const { file, edits: list } of edits) {
      const path = join(dir, file)
      await writeFile(path, applyEdits(file, await readFile(path), list))
    }
    await restampManifest(dir)
    dirs.push(dir)
  }
  return dirs
}

describe('the fast path', () => {
  it('gives the findings the zod path gives, on every damaged bundle', async () => {
    const dirs = await damagedBundles()
    const fast: Finding[][] = []
    for (const dir of dirs) fast.push(await validateBundle(dir))

    vi.resetModules()
    const never = () => false
    vi.doMock('../../src/core/plain-values.ts', () => ({ isPlainValue: never }))
    vi.doMock('../../src/core/trace-event-shape.ts', async (importOriginal) => ({
      ...(await importOriginal<object>()),
      isTraceEvent: never,
    }))
    vi.doMock('../../src/bundles/otlp-shape.ts', () => ({ isOtlpTraceRequest: never }))
    const slowPath = (await import('../../src/bundles/index.ts')).validateBundle
    expect(slowPath).not.toBe(validateBundle)
    const slow: Finding[][] = []
    for (const dir of dirs) slow.push(await slowPath(dir))
    vi.doUnmock('../../src/core/plain-values.ts')
    vi.doUnmock('../../src/core/trace-event-shape.ts')
    vi.doUnmock('../../src/bundles/otlp-shape.ts')

    dirs.forEach((dir, i) => expect(fast[i], dir).toEqual(slow[i]))
    // The sample damaged the checks behind the schemas too, not only JSON syntax: both kinds of finding occur.
    const checks = new Set(fast.flat().map((f) => f.check))
    for (const check of ['trace-schema', 'spans', 'finite-numbers']) expect(checks).toContain(check)
    expect(fast.filter((f) => f.length === 0).length).toBeLessThan(BUNDLES)
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
  }, 120_000)
})
