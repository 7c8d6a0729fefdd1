import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TaskSpec } from '../../../src/core/index.ts'
import { datasetBenchmark, type GraderSpecInput } from '../../../src/benchmarks/index.ts'
import { errorOf, fixture, tempFolder } from './helpers.ts'

let tmp: Awaited<ReturnType<typeof tempFolder>>
beforeAll(async () => {
  tmp = await tempFolder()
})
afterAll(async () => {
  await tmp.remove()
})

/** Loads `text` as a dataset file named `name` and returns the DATASET_INVALID error it gives. */
async function loadError(name: string, text: string, options: Record<string, unknown> = {}) {
  const path = await tmp.write(name, text)
  const error = await errorOf(() => datasetBenchmark({ path, ...options }).listTasks())
  return { path, error }
}

describe('dataset: loading JSONL', () => {
  it('reads one task per non-blank line, in file order, stamped with the benchmark id and a checksum', async () => {
    const adapter = datasetBenchmark({ path: fixture('arith.jsonl') })
    expect(adapter.id).toBe('arith')
    expect(adapter.version).toBe('1')
    const tasks = await adapter.listTasks()
    expect(tasks.map((t) => t.id)).toEqual([
      'add-1',
      'mul-1',
      'div-1',
      'capital-fr',
      'moon-year',
      'json-point',
      'tool-weather',
      'sub-1',
    ])
    for (const task of tasks) {
      expect(TaskSpec.parse(task)).toEqual(task)
      expect(task.benchmark).toBe('arith')
    }
    expect(tasks[1]).toMatchObject({
      prompt: 'What is 6 * 7?',
      expected: 42,
      metadata: { category: 'arithmetic', difficulty: 'easy' },
    })
    expect(tasks[4]!.expected).toBe('^\\s*1969\\b')
  })

  it('turns tools into ToolSpecs (input_schema → inputSchema) and keeps no grader key on the task', async () => {
    const tasks = await datasetBenchmark({ path: fixture('arith.jsonl') }).listTasks()
    const weather = tasks.find((t) => t.id === 'tool-weather')!
    expect(weather.tools).toEqual([
      {
        name: 'weather',
        description: 'Current weather of a city',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ])
    expect(Object.keys(weather)).not.toContain('grader')
    expect(weather.expected).toBeUndefined()
  })

  it('takes the id and version from the options, and a camelCase inputSchema too', async () => {
    const path = await tmp.write(
      'tools.jsonl',
      '{"id":"t","prompt":"p","tools":[{"name":"calc","inputSchema":{"type":"object"}}]}\n',
    )
    const adapter = datasetBenchmark({ path, id: 'my-bench', version: 3 })
    expect([adapter.id, adapter.version]).toEqual(['my-bench', '3'])
    const [task] = await adapter.listTasks()
    expect(task).toMatchObject({ benchmark: 'my-bench', tools: [{ name: 'calc', description: '' }] })
    expect(task!.tools![0]!.inputSchema).toEqual({ type: 'object' })
  })

  it('gives a task the same checksum on every load, and another one when its content changes', async () => {
    const a = await tmp.write('c1.jsonl', '{"id":"x","prompt":"What is 1+1?","expected":"2"}\n')
    const b = await tmp.write('c2.jsonl', '\n{"id":"x","prompt":"What is 1+1?","expected":"2"}\n')
    const c = await tmp.write('c3.jsonl', '{"id":"x","prompt":"What is 1+2?","expected":"2"}\n')
    const sum = async (path: string) => (await datasetBenchmark({ path, id: 'c' }).listTasks())[0]!.checksum
    expect(await sum(a)).toBe(await sum(b))
    expect(await sum(a)).not.toBe(await sum(c))
  })

  it('gives a task another checksum when its grader changes, its own or the default, though the spec shows none', async () => {
    const line = '{"id":"x","prompt":"What is 1+1?","expected":"2"}\n'
    const plain = await tmp.write('g1.jsonl', line)
    const own = await tmp.write('g2.jsonl', line.replace('}', ',"grader":{"type":"contains"}}'))
    const task = async (path: string, grader?: GraderSpecInput) =>
      (await datasetBenchmark({ path, id: 'g', ...(grader ? { grader } : {}) }).listTasks())[0]!
    const sums = [
      (await task(plain)).checksum,
      (await task(plain, { type: 'none' })).checksum,
      (await task(plain, { type: 'exact', case_insensitive: true })).checksum,
      (await task(own)).checksum,
    ]
    expect(new Set(sums).size).toBe(4)
    // A string `expected` with no grader is graded exactly, as an explicit exact grader would: the same checksum.
    expect((await task(plain, { type: 'exact' })).checksum).toBe(sums[0])
    expect(await task(own)).not.toHaveProperty('grader')
  })
})

describe('dataset: loading YAML', () => {
  it('reads a mapping with a tasks: list', async () => {
    const tasks = await datasetBenchmark({ path: fixture('trivia.yaml') }).listTasks()
    expect(tasks.map((t) => t.id)).toEqual([
      'capital-de',
      'capital-jp',
      'largest-planet',
      'pi',
      'inner-planets',
      'haiku',
    ])
    expect(tasks[0]).toMatchObject({
      benchmark: 'trivia',
      expected: 'Berlin',
      metadata: { category: 'geography', difficulty: 'easy' },
    })
    expect(tasks[3]).toMatchObject({ input: { precision: 2 }, expected: 3.14 })
  })

  it('reads a plain list of tasks (.yml)', async () => {
    const tasks = await datasetBenchmark({ path: fixture('ungraded.yml') }).listTasks()
    expect(tasks.map((t) => [t.id, t.benchmark, t.expected])).toEqual([
      ['greet', 'ungraded', undefined],
      ['farewell', 'ungraded', 'goodbye'],
    ])
  })

  it('reads the file once: a change after the first read is not seen by the same adapter', async () => {
    const path = await tmp.write('once.yaml', '- { id: a, prompt: p }\n')
    const adapter = datasetBenchmark({ path })
    expect((await adapter.listTasks()).map((t) => t.id)).toEqual(['a'])
    await tmp.write('once.yaml', '- { id: b, prompt: p }\n')
    expect((await adapter.listTasks()).map((t) => t.id)).toEqual(['a'])
    expect((await datasetBenchmark({ path }).listTasks()).map((t) => t.id)).toEqual(['b'])
  })
})

describe('dataset: invalid files are DATASET_INVALID errors at file:line', () => {
  it('names the line of a JSONL line that is not JSON (blank lines still count)', async () => {
    const { path, error } = await loadError(
      'bad-json.jsonl',
      '{"id":"a","prompt":"p"}\n\n{"id":"b", prompt: "q"}\n',
    )
    expect(error.location).toEqual({ file: path, line: 3 })
    expect(error.message).toMatch(new RegExp(`^${path}:3: the line is not valid JSON`))
    expect(error.hint).toContain('one task as a JSON object')
  })

  it('names a task without an id, in JSONL and in YAML', async () => {
    const jsonl = await loadError('no-id.jsonl', '{"id":"a","prompt":"p"}\n{"prompt":"q"}\n')
    expect(jsonl.error.location?.line).toBe(2)
    expect(jsonl.error.message).toContain(`${jsonl.path}:2: task: missing id`)

    const yaml = await loadError('no-id.yaml', 'tasks:\n  - id: a\n    prompt: p\n  - prompt: q\n')
    expect(yaml.error.location?.line).toBe(4)
    expect(yaml.error.message).toContain('task (item 2 of tasks:): missing id')
  })

  it('names a missing prompt, and a wrongly typed field', async () => {
    const missing = await loadError('no-prompt.jsonl', '{"id":"a"}\n')
    expect(missing.error.message).toContain(':1: task "a": missing prompt')
    const typed = await loadError('typed.yaml', '- id: a\n  prompt: p\n  metadata: { category: 7 }\n')
    expect(typed.error.location?.line).toBe(3)
    expect(typed.error.message).toContain('task "a" (item 1): metadata.category: expected string')
  })

  it('names both lines of a duplicate id', async () => {
    const { error } = await loadError(
      'dup.jsonl',
      '{"id":"a","prompt":"p"}\n{"id":"b","prompt":"p"}\n{"id":"a","prompt":"q"}\n',
    )
    expect(error.location?.line).toBe(3)
    expect(error.message).toContain('task id "a" is used twice: on lines 1 and 3')
    expect(error.hint).toContain('unique')
  })

  it('names an unknown key (a typo) and its line, also inside a grader', async () => {
    const jsonl = await loadError('typo.jsonl', '{"id":"a","prompt":"p"}\n{"id":"b","promt":"q"}\n')
    expect(jsonl.error.location?.line).toBe(2)
    // The typo is the cause: it is reported rather than the prompt it leaves missing.
    expect(jsonl.error.message).toContain('task "b": unknown key "promt"')
    expect(jsonl.error.hint).toContain('id, prompt, input, expected, tools, metadata, grader')

    const yaml = await loadError(
      'typo.yaml',
      ['- id: a', '  prompt: p', '  grader:', '    type: exact', '    tirm: false', ''].join('\n'),
    )
    expect(yaml.error.location?.line).toBe(5)
    expect(yaml.error.message).toContain('task "a" (item 1): unknown key "tirm" in grader')
  })

  it('names an unknown grader type with the known ones', async () => {
    const { error } = await loadError('gtype.jsonl', '{"id":"a","prompt":"p","grader":{"type":"exakt"}}\n')
    expect(error.message).toContain(
      'grader.type must be one of exact, contains, regex, numeric, json, none, got "exakt"',
    )
  })

  it('rejects a grader that cannot grade its task: no usable expected value, a bad pattern', async () => {
    const noExpected = await loadError('g1.jsonl', '{"id":"a","prompt":"p","grader":{"type":"exact"}}\n')
    expect(noExpected.error.message).toContain(
      'task "a": the exact grader needs the expected answer as a string or number, and the task has none',
    )
    const notNumber = await loadError(
      'g2.jsonl',
      '{"id":"a","prompt":"p","expected":"many","grader":{"type":"numeric"}}\n',
    )
    expect(notNumber.error.message).toContain('the numeric grader needs the expected answer as a number')
    const pattern = await loadError(
      'g3.yaml',
      '- id: a\n  prompt: p\n  grader: { type: regex, pattern: "(unclosed" }\n',
    )
    expect(pattern.error.location?.line).toBe(3)
    expect(pattern.error.message).toContain('invalid regular expression /(unclosed/')
  })

  it("says when the benchmark's default grader is the one that cannot grade a task", async () => {
    const { error } = await loadError('g4.jsonl', '{"id":"a","prompt":"p","expected":{"x":1}}\n', {
      grader: { type: 'exact' },
    })
    expect(error.location?.line).toBe(1)
    expect(error.message).toContain("the task has a mapping (the benchmark's default grader)")
  })

  it('reports every problem of the file at once, by line, one line each', async () => {
    const { path, error } = await loadError('many.jsonl', '{"prompt":"p"}\n{"id":"a"}\nnot json\n')
    expect(error.location?.line).toBe(1)
    expect(error.message.split('\n')).toEqual([
      `${path}:1: task: missing id.`,
      `${path}:2: task "a": missing prompt.`,
      expect.stringContaining(`${path}:3: the line is not valid JSON: `),
      expect.stringMatching(/^3 problems in the file\. Fix the task in the dataset file/),
    ])
  })

  it('lists every problem of a YAML file with its line and field path, a value JSON cannot hold among them', async () => {
    const { path, error } = await loadError(
      'several.yaml',
      [
        '- id: a', //                      1
        '  prompt: p', //                  2
        '  input:', //                     3
        '    x: .nan', //                  4
        '    y: [1, .inf]', //             5
        '- id: b', //                      6
        '  prompt: 42', //                 7
        '  metadata:', //                  8
        '    category: [x]', //            9
        '- id: c', //                     10
        '  prompt: p', //                 11
        '  tools:', //                    12
        '    - description: no name', //  13
        '  extra: 1', //                  14
        '',
      ].join('\n'),
    )
    expect(error.code).toBe('DATASET_INVALID')
    expect(error.location?.line).toBe(4)
    const lines = error.message.split('\n')
    expect(lines).toEqual([
      `${path}:4: task "a" (item 1): input.x is NaN; tasks must be plain JSON — JSON has no such number: use null, or a string such as "NaN".`,
      `${path}:5: task "a" (item 1): input.y[1] is Infinity; tasks must be plain JSON — JSON has no such number: use null, or a string such as "Infinity".`,
      `${path}:7: task "b" (item 2): prompt: expected string, received number.`,
      `${path}:9: task "b" (item 2): metadata.category: expected string, received array.`,
      `${path}:13: task "c" (item 3): missing tools[0].name.`,
      `${path}:14: task "c" (item 3): unknown key "extra".`,
      expect.stringMatching(/^6 problems in the file\. Fix the task in the dataset file/),
    ])
  })

  it('names the line of a YAML syntax error, and rejects a file of the wrong shape', async () => {
    const syntax = await loadError('syntax.yaml', '- id: a\n  prompt: p\n- id: [b\n')
    expect(syntax.error.message).toContain('invalid YAML')
    expect(syntax.error.location?.line).toBeGreaterThanOrEqual(3)

    const scalar = await loadError('scalar.yaml', 'just some text\n')
    expect(scalar.error.message).toContain('expected a list of tasks')

    const extra = await loadError('extra.yaml', 'name: x\ntasks:\n  - { id: a, prompt: p }\n')
    expect(extra.error.location?.line).toBe(1)
    expect(extra.error.message).toContain('unknown key "name" at the top of the file')

    const item = await loadError('item.yaml', '- { id: a, prompt: p }\n- just text\n')
    expect(item.error.location?.line).toBe(2)
    expect(item.error.message).toContain('expected a task mapping, got string')
  })

  it('rejects an empty dataset and an unknown file type', async () => {
    const empty = await loadError('empty.jsonl', '\n\n')
    expect(empty.error.message).toContain('the dataset has no tasks')
    const csv = await loadError('tasks.csv', 'id,prompt\n')
    expect(csv.error.message).toContain('unsupported dataset file type ".csv"')
    expect(csv.error.hint).toContain('.jsonl')
  })

  it('says which file is missing and what a relative path is resolved against, only when first needed', async () => {
    const adapter = datasetBenchmark({ path: 'no/such/tasks.jsonl' })
    // Lazy: creating the adapter reads nothing.
    const error = await errorOf(() => adapter.info())
    expect(error.message).toContain('dataset file "no/such/tasks.jsonl" not found')
    expect(error.message).toContain(join(process.cwd(), 'no/such/tasks.jsonl'))
    expect(error.message).toContain(`resolved against the current directory (${process.cwd()})`)

    const fromConfig = datasetBenchmark({ path: 'tasks.jsonl' }, { baseDir: tmp.dir })
    const second = await errorOf(() => fromConfig.listTasks())
    expect(second.message).toContain(`resolved against ${tmp.dir}`)
  })

  it('resolves a relative path against the given base folder', async () => {
    await tmp.write('based.jsonl', '{"id":"a","prompt":"p"}\n')
    const adapter = datasetBenchmark({ path: 'based.jsonl' }, { baseDir: tmp.dir })
    expect(adapter.file).toBe(join(tmp.dir, 'based.jsonl'))
    expect((await adapter.listTasks()).map((t) => t.id)).toEqual(['a'])
    expect((await adapter.info()).selection).toMatchObject({ path: 'based.jsonl' })
  })
})

describe('dataset: options', () => {
  it('rejects unknown and invalid options at once, as CONFIG_INVALID naming the option', async () => {
    const typo = await errorOf(
      () => datasetBenchmark({ path: 'x.jsonl', limt: 3 } as never),
      'CONFIG_INVALID',
    )
    expect(typo.message).toContain('unknown option "limt"')
    expect(typo.hint).toContain('shuffle_seed')
    const zero = await errorOf(() => datasetBenchmark({ path: 'x.jsonl', limit: 0 }), 'CONFIG_INVALID')
    expect(zero.message).toContain('limit')
    const noPath = await errorOf(() => datasetBenchmark({} as never), 'CONFIG_INVALID')
    expect(noPath.message).toContain('missing option path')
    const seed = await errorOf(
      () => datasetBenchmark({ path: 'x.jsonl', shuffle_seed: 1.5 }),
      'CONFIG_INVALID',
    )
    expect(seed.message).toContain('shuffle_seed')
    const grader = await errorOf(
      () => datasetBenchmark({ path: 'x.jsonl', grader: { type: 'numeric', tolerance: -1 } }),
      'CONFIG_INVALID',
    )
    expect(grader.message).toContain('grader.tolerance')
  })
})
