import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256 } from '../../../src/core/index.ts'
import { datasetBenchmark } from '../../../src/benchmarks/index.ts'
import { seededShuffle } from '../../../src/benchmarks/dataset/select.ts'
import { errorOf, fixture, tempFolder } from './helpers.ts'

const ARITH = fixture('arith.jsonl')
const ALL = ['add-1', 'mul-1', 'div-1', 'capital-fr', 'moon-year', 'json-point', 'tool-weather', 'sub-1']

const idsOf = async (options: Parameters<typeof datasetBenchmark>[0], filter?: Record<string, string[]>) =>
  (await datasetBenchmark(options).listTasks(filter)).map((t) => t.id)

describe('dataset: selection options', () => {
  it('keeps the listed ids, in file order', async () => {
    expect(await idsOf({ path: ARITH, ids: ['sub-1', 'add-1'] })).toEqual(['add-1', 'sub-1'])
  })

  it('rejects an id the dataset does not have, listing some it has', async () => {
    const error = await errorOf(() => datasetBenchmark({ path: ARITH, ids: ['add-1', 'add-2'] }).listTasks())
    expect(error.message).toContain('names task the dataset does not have: "add-2"')
    expect(error.hint).toContain('"add-1", "mul-1"')
  })

  it('keeps one category or any of several', async () => {
    expect(await idsOf({ path: ARITH, category: 'trivia' })).toEqual(['capital-fr', 'moon-year'])
    expect(await idsOf({ path: ARITH, category: ['trivia', 'tool-use'] })).toEqual([
      'capital-fr',
      'moon-year',
      'tool-weather',
    ])
  })

  it('rejects a category no task has, listing the ones there are', async () => {
    const error = await errorOf(() => datasetBenchmark({ path: ARITH, category: 'trivai' }).listTasks())
    expect(error.message).toContain('"trivai"')
    expect(error.hint).toBe('Its categories are "arithmetic", "structured", "tool-use", "trivia".')
  })

  it('limits after filtering', async () => {
    expect(await idsOf({ path: ARITH, limit: 3 })).toEqual(['add-1', 'mul-1', 'div-1'])
    expect(await idsOf({ path: ARITH, category: 'arithmetic', limit: 2 })).toEqual(['add-1', 'mul-1'])
    expect(await idsOf({ path: ARITH, limit: 100 })).toEqual(ALL)
  })

  it('shuffles deterministically by seed: the same seed the same order, another seed another, always a permutation', async () => {
    const seven = await idsOf({ path: ARITH, shuffle_seed: 7 })
    expect(await idsOf({ path: ARITH, shuffle_seed: 7 })).toEqual(seven)
    const eight = await idsOf({ path: ARITH, shuffle_seed: 8 })
    expect(eight).not.toEqual(seven)
    expect(seven).not.toEqual(ALL)
    expect([...seven].sort()).toEqual([...ALL].sort())
    expect([...eight].sort()).toEqual([...ALL].sort())
    // The limit takes the first tasks of the shuffled order.
    expect(await idsOf({ path: ARITH, shuffle_seed: 7, limit: 3 })).toEqual(seven.slice(0, 3))
  })

  it('shuffles with a fixed algorithm (seeded Fisher–Yates over mulberry32), so orders survive releases', () => {
    expect(seededShuffle([1, 2, 3, 4, 5, 6, 7, 8], 42)).toMatchInlineSnapshot(`
      [
        3,
        8,
        2,
        1,
        7,
        6,
        4,
        5,
      ]
    `)
    expect(seededShuffle([], 1)).toEqual([])
    expect(seededShuffle(['only'], 1)).toEqual(['only'])
  })

  it('applies a generic metadata filter on top of the selection, as the toy benchmark does', async () => {
    expect(await idsOf({ path: ARITH }, { difficulty: ['easy'] })).toEqual(['add-1', 'mul-1', 'capital-fr'])
    expect(await idsOf({ path: ARITH, category: 'arithmetic' }, { difficulty: ['easy', 'medium'] })).toEqual([
      'add-1',
      'mul-1',
      'div-1',
    ])
    expect(await idsOf({ path: ARITH }, { id: ['json-point'] })).toEqual(['json-point'])
    expect(await idsOf({ path: ARITH, limit: 2 }, { id: ['json-point'] })).toEqual([])
  })
})

describe('dataset: info()', () => {
  let tmp: Awaited<ReturnType<typeof tempFolder>>
  beforeAll(async () => {
    tmp = await tempFolder()
  })
  afterAll(async () => {
    await tmp.remove()
  })

  it("checksums the file's bytes and records the path and task count when nothing is filtered", async () => {
    const info = await datasetBenchmark({ path: ARITH }).info()
    expect(info).toEqual({
      id: 'arith',
      version: '1',
      datasetChecksum: sha256(await readFile(ARITH)),
      selection: { path: ARITH, taskCount: 8 },
    })
  })

  it('records exactly the filters used, as given, with the count they leave', async () => {
    const info = await datasetBenchmark({
      path: ARITH,
      id: 'arith-subset',
      version: '2',
      ids: ['add-1', 'mul-1', 'capital-fr', 'sub-1'],
      category: ['arithmetic'],
      shuffle_seed: 3,
      limit: 2,
    }).info()
    expect(info).toMatchObject({ id: 'arith-subset', version: '2' })
    expect(info.selection).toEqual({
      path: ARITH,
      ids: ['add-1', 'mul-1', 'capital-fr', 'sub-1'],
      category: ['arithmetic'],
      limit: 2,
      shuffleSeed: 3,
      taskCount: 2,
    })
    const single = await datasetBenchmark({ path: ARITH, category: 'trivia' }).info()
    expect(single.selection).toEqual({ path: ARITH, category: 'trivia', taskCount: 2 })
  })

  it('changes its checksum when one byte of the file changes, and not with the selection', async () => {
    const original = await readFile(ARITH)
    const copy = await tmp.write('arith.jsonl', original.toString('utf8'))
    const before = (await datasetBenchmark({ path: copy }).info()).datasetChecksum
    expect((await datasetBenchmark({ path: copy, limit: 1 }).info()).datasetChecksum).toBe(before)

    const changed = Buffer.from(original)
    const at = changed.indexOf('"7"')
    expect(at).toBeGreaterThan(0)
    changed[at + 1] = '8'.charCodeAt(0)
    await tmp.write('arith.jsonl', changed.toString('utf8'))
    const after = (await datasetBenchmark({ path: copy }).info()).datasetChecksum
    expect(after).not.toBe(before)
    expect(after).toBe(sha256(changed))
  })
})
