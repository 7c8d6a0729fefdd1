import { mkdir, readdir } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Finding } from '../../src/bundles/index.ts'
import { seededRandom } from '../../src/scorers/stats/index.ts'
import { FoldIndex, type IndexedTrial } from '../../reporters/fold-index.ts'
import { tempDir } from '../bundles/fixtures.ts'

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('aeo-fold-index-')
})
afterAll(() => work.remove())

/** `n` folds of trials drawn from a small key space (so many are folded twice), in a random order. */
function folds(n: number, seed: number): { trial: IndexedTrial; findings: Finding[] }[] {
  const random = seededRandom(seed)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!
  return Array.from({ length: n }, (_, i) => ({
    trial: {
      benchmarkId: pick(['alpha', 'beta', 'β-ünï']),
      taskId:
        pick(['t', 't-1', 't-10', 't-2', 'T', '𝄞', 'a\u0000b', 'é']) + String(Math.floor(random() * 40)),
      trial: Math.floor(random() * 3),
      ranges: [i * 10, 10, i * 7, 7, i, 1],
      interrupted: random() < 0.1,
    },
    findings: random() < 0.05 ? [{ check: 'trace-steps', file: 'traces.jsonl', message: `fold ${i}` }] : [],
  }))
}

/** What the fold kept before: a map by key, the last fold winning, sorted in bundle order. */
function reference(all: readonly { trial: IndexedTrial }[]): IndexedTrial[] {
  const byKey = new Map<string, IndexedTrial>()
  for (const { trial: t } of all) byKey.set(`${t.benchmarkId}\u0000${t.taskId}\u0000${t.trial}`, t)
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return [...byKey.values()].sort(
    (a, b) => cmp(a.benchmarkId, b.benchmarkId) || cmp(a.taskId, b.taskId) || a.trial - b.trial,
  )
}

describe('FoldIndex', () => {
  it.each([
    [0, 2048, 64],
    [1, 2048, 64],
    [500, 2048, 64],
    [3000, 7, 3],
    [5000, 50, 4],
  ])(
    'gives %i folds (runs of %i, merged %i at a time) as the map of last folds did, sorted',
    async (n, runEntries, fanIn) => {
      const dir = `${work.path}/${n}-${runEntries}`
      await mkdir(dir)
      const all = folds(n, n + runEntries)
      const index = new FoldIndex(dir, { runEntries, fanIn })
      for (const { trial, findings } of all) index.add(trial, findings)
      const expected = reference(all)
      expect([...index.sorted()]).toEqual(expected)
      // Read again, the same; the runs merged down to at most fanIn files.
      expect([...index.sorted()]).toEqual(expected)
      if (n > 0) expect((await readdir(dir)).length).toBeLessThanOrEqual(fanIn)
      expect(index.counts()).toEqual({
        trials: expected.length,
        interrupted: expected.filter((t) => t.interrupted).length,
      })
      const lastFindings = new Map<string, Finding[]>()
      for (const { trial: t, findings } of all)
        lastFindings.set(`${t.benchmarkId}/${t.taskId}/${t.trial}`, findings)
      expect(
        index
          .traceFindings()
          .map((f) => f.message)
          .sort(),
      ).toEqual(
        [...lastFindings.values()]
          .flat()
          .map((f) => f.message)
          .sort(),
      )

      index.dropInterrupted()
      expect([...index.sorted()]).toEqual(expected.filter((t) => !t.interrupted))
      expect(index.counts().trials).toBe(expected.length)
    },
  )

  it('says which of the asked keys were folded, and folds added after a read are in the next', async () => {
    const dir = `${work.path}/present`
    await mkdir(dir)
    const index = new FoldIndex(dir, { runEntries: 2 })
    const trial = (taskId: string, n: number): IndexedTrial => ({
      benchmarkId: 'b',
      taskId,
      trial: n,
      ranges: [0, 1, 0, 1],
      interrupted: false,
    })
    for (const t of [trial('x', 0), trial('y', 1), trial('x', 1)]) index.add(t, [])
    expect(index.present(new Set(['b\u0000x\u00000', 'b\u0000x\u00002', 'b\u0000y\u00001']))).toEqual(
      new Set(['b\u0000x\u00000', 'b\u0000y\u00001']),
    )
    index.add(trial('a', 0), [])
    expect([...index.sorted()].map((t) => `${t.taskId}${t.trial}`)).toEqual(['a0', 'x0', 'x1', 'y1'])
  })
})
