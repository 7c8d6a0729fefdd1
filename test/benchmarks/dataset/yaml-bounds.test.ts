import { truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_YAML_DEPTH } from '../../../src/core/index.ts'
import { datasetBenchmark } from '../../../src/benchmarks/index.ts'
import { errorOf, tempFolder } from './helpers.ts'

// Issue 18, point 6: a huge, key-heavy or deeply nested YAML dataset is refused quickly, with a located error.

let tmp: Awaited<ReturnType<typeof tempFolder>>
beforeAll(async () => {
  tmp = await tempFolder()
})
afterAll(async () => {
  await tmp.remove()
})

const loadError = async (path: string) => errorOf(() => datasetBenchmark({ path }).listTasks())

describe('dataset: YAML bounds', () => {
  it('finds a duplicate key at the end of a 40k-key mapping, at its line, naming the first', async () => {
    const count = 40_000
    const keys = Array.from({ length: count }, (_, i) => `    k${i}: ${i}`)
    // `- id: a` is line 1, `prompt:` 2, `input:` 3; key k<i> is on line 4 + i; the duplicate follows the last key.
    const path = await tmp.write(
      'keys.yaml',
      `- id: a\n  prompt: p\n  input:\n${keys.join('\n')}\n    k7: again\n`,
    )
    const error = await loadError(path)
    expect(error.location?.line).toBe(4 + count)
    expect(error.message).toContain(
      'invalid YAML: duplicate key "k7" (first on line 11): map keys must be unique, remove or rename one.',
    )
  })

  it('lists every duplicate key of the file, each at its line', async () => {
    const path = await tmp.write(
      'dups.yaml',
      '- id: a\n  prompt: p\n  id: b\n- id: c\n  prompt: q\n  prompt: r\n',
    )
    const error = await loadError(path)
    expect(error.location?.line).toBe(3)
    expect(error.message).toContain(
      'invalid YAML: duplicate key "id" (first on line 1): map keys must be unique, remove or rename one.',
    )
    expect(error.message).toContain(
      `${path}:6: invalid YAML: duplicate key "prompt" (first on line 5): map keys must be unique, remove or rename one.`,
    )
    expect(error.message).toContain('2 problems in the file.')
  })

  it('locates 100k-deep nesting instead of overflowing the stack', async () => {
    const depth = 100_000
    const path = await tmp.write(
      'deep.yaml',
      `- id: a\n  prompt: p\n  input: ${'['.repeat(depth)}${']'.repeat(depth)}\n`,
    )
    const error = await loadError(path)
    expect(error.location?.line).toBe(3)
    expect(error.message).toContain(
      `invalid YAML: the lists and mappings are nested too deep (more than ${MAX_YAML_DEPTH} levels): flatten the structure.`,
    )
  })

  it('refuses a YAML dataset over 32 MiB before reading it, and points to JSONL', async () => {
    const path = join(tmp.dir, 'huge.yaml')
    await writeFile(path, '- id: a\n  prompt: p\n')
    await truncate(path, 40 * 1024 * 1024)
    const error = await loadError(path)
    expect(error.message).toContain('the file is 40.0 MiB, more than the 32 MiB a YAML dataset may be.')
    expect(error.hint).toContain('JSONL')
  })

  it('refuses a JSONL dataset over 256 MiB before reading it', async () => {
    const path = join(tmp.dir, 'huge.jsonl')
    await writeFile(path, '{"id":"a","prompt":"p"}\n')
    await truncate(path, 300 * 1024 * 1024)
    const error = await loadError(path)
    expect(error.message).toContain('the file is 300.0 MiB, more than the 256 MiB a JSONL dataset may be.')
  })
})
