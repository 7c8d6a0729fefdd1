import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  checkProgram,
  completionFrom,
  humanEvalBenchmark,
  readHumanEval,
} from '../../../src/benchmarks/index.ts'
import { sha256 } from '../../../src/core/index.ts'
import { HUMANEVAL_PATH } from '../../support/datasets.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-humaneval-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const problem = (id: string) => ({
  task_id: id,
  prompt: 'def f(x):\n    """Doubles x."""\n',
  entry_point: 'f',
  canonical_solution: '    return 2 * x\n',
  test: '\n\ndef check(candidate):\n    assert candidate(2) == 4\n',
})

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, text)
  return path
}

describe('readHumanEval', () => {
  it('reads the official file: 164 problems, ids HumanEval/0 … /163, checksum of the decompressed text', async () => {
    const { problems, checksum } = await readHumanEval(HUMANEVAL_PATH)
    expect(problems).toHaveLength(164)
    expect(problems[0]?.task_id).toBe('HumanEval/0')
    expect(problems[163]?.task_id).toBe('HumanEval/163')
    expect(problems.every((p) => p.test.includes('def check('))).toBe(true)
    expect(checksum).toBe(sha256(gunzipSync(await readFile(HUMANEVAL_PATH)).toString('utf8')))
  })

  it('reads an uncompressed .jsonl and a re-compressed .gz to the same problems and checksum', async () => {
    const text = `${JSON.stringify(problem('a/0'))}\n\n${JSON.stringify(problem('a/1'))}\n`
    const plain = await readHumanEval(await file('plain.jsonl', text))
    const gz = join(dir, 'again.jsonl.gz')
    await writeFile(gz, gzipSync(text, { level: 1 }))
    expect(await readHumanEval(gz)).toEqual(plain)
    expect(plain.problems.map((p) => p.task_id)).toEqual(['a/0', 'a/1'])
  })

  it.each([
    ['a line that is not JSON', '{"task_id": \n', /bad\.jsonl:1: not JSON/],
    ['a missing field', `${JSON.stringify({ ...problem('x'), test: undefined })}\n`, /bad\.jsonl:1: test:/],
    ['an unknown field', `${JSON.stringify({ ...problem('x'), extra: 1 })}\n`, /bad\.jsonl:1: .*extra/],
    [
      'an entry point that is no identifier',
      `${JSON.stringify({ ...problem('x'), entry_point: 'f()' })}\n`,
      /entry_point: a Python identifier/,
    ],
    [
      'a repeated task id',
      `${JSON.stringify(problem('x'))}\n${JSON.stringify(problem('x'))}\n`,
      /bad\.jsonl:2: .*repeats line 1/,
    ],
    ['no problem at all', '\n\n', /holds no problem/],
  ])('refuses %s with DATASET_INVALID and the line', async (_name, text, message) => {
    const path = await file('bad.jsonl', text)
    await expect(readHumanEval(path)).rejects.toMatchObject({ code: 'DATASET_INVALID', message })
  })

  it('says which path it could not read, and what to point it at', async () => {
    await expect(readHumanEval(join(dir, 'missing.jsonl.gz'))).rejects.toMatchObject({
      code: 'DATASET_INVALID',
      message: /cannot read the HumanEval file .*missing\.jsonl\.gz.*HumanEval\.jsonl\.gz/,
    })
  })
})

describe('humanEvalBenchmark tasks', () => {
  it('lists every problem as a task whose checksum covers its tests', async () => {
    const bench = humanEvalBenchmark({ path: HUMANEVAL_PATH })
    const tasks = await bench.listTasks()
    expect(tasks).toHaveLength(164)
    const first = tasks[0]!
    expect(first).toMatchObject({ id: 'HumanEval/0', benchmark: 'humaneval' })
    expect(first.prompt).toContain('def has_close_elements(')
    expect(first.expected).toMatchObject({ entry_point: 'has_close_elements' })
    const info = await bench.info()
    expect(info).toMatchObject({ id: 'humaneval', version: '1', selection: { taskCount: 164 } })
    expect(info.datasetChecksum).toMatch(/^[0-9a-f]{64}$/)

    // One changed assert is another task.
    const text = gunzipSync(await readFile(HUMANEVAL_PATH)).toString('utf8')
    const changed = await file(
      'changed.jsonl',
      text.replace(
        'candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True',
        'candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.31) == True',
      ),
    )
    const again = await humanEvalBenchmark({ path: changed }).listTasks()
    expect(again[0]?.checksum).not.toBe(first.checksum)
    expect(again[1]?.checksum).toBe(tasks[1]?.checksum)
  })

  it('selects by ids (in their order) and limit, records the selection, and names unknown ids', async () => {
    const bench = humanEvalBenchmark({
      path: HUMANEVAL_PATH,
      ids: ['HumanEval/7', 'HumanEval/3', 'HumanEval/5'],
      limit: 2,
    })
    expect((await bench.listTasks()).map((t) => t.id)).toEqual(['HumanEval/7', 'HumanEval/3'])
    expect((await bench.info()).selection).toEqual({
      taskCount: 2,
      ids: ['HumanEval/7', 'HumanEval/3', 'HumanEval/5'],
      limit: 2,
    })
    const wrong = humanEvalBenchmark({ path: HUMANEVAL_PATH, ids: ['HumanEval/999'] })
    await expect(wrong.listTasks()).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: /HumanEval\/999/,
    })
  })

  it('refuses unknown options', () => {
    let caught: unknown
    try {
      humanEvalBenchmark({ path: HUMANEVAL_PATH, timeout: 3 } as never)
    } catch (e) {
      caught = e
    }
    expect(caught).toMatchObject({ code: 'CONFIG_INVALID', message: /humaneval.*timeout/ })
  })
})

describe('the check program', () => {
  it('is upstream’s: prompt + completion + tests + check(entry_point)', () => {
    const p = problem('x')
    expect(checkProgram(p, '    return 2 * x\n')).toBe(`${p.prompt}    return 2 * x\n\n${p.test}\ncheck(f)\n`)
  })

  it('takes the first fenced block of an answer, or the answer as it is', () => {
    expect(completionFrom('Sure!\n```python\n    return 1\n```\nand ```python\nno\n```')).toBe(
      '    return 1\n',
    )
    expect(completionFrom('```\ndef f(x):\n    return x\n```')).toBe('def f(x):\n    return x\n')
    expect(completionFrom('    return x\n')).toBe('    return x\n')
    expect(completionFrom(null)).toBe('')
  })
})
