import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harborBenchmark, HarborOptions, type HarborExpected } from '../../../src/benchmarks/harbor/index.ts'
import { readReward, testTimeout, verdict } from '../../../src/benchmarks/harbor/grade.ts'
import { AgentEvalOpsError, isAgentEvalOpsError } from '../../../src/core/index.ts'
import { copyFixtures, FIXTURE_TASKS, taskById, taskToml, writeTask } from './helpers.ts'

let tmp: string

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'aeo-harbor-'))
})

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true })
})

/** The AgentEvalOpsError `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<AgentEvalOpsError> {
  try {
    await promise
  } catch (e) {
    expect(e).toBeInstanceOf(AgentEvalOpsError)
    return e as AgentEvalOpsError
  }
  throw new Error('expected a rejection')
}

describe('harborBenchmark: loading task folders', () => {
  it('lists one task per folder, in id order, with the instruction as prompt and task.toml as metadata', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const tasks = await bench.listTasks()
    expect(tasks.map((t) => t.id)).toEqual(['answer-reward', 'hello-file', 'upper-case-seed'])
    const hello = tasks[1]!
    expect(hello.benchmark).toBe('harbor')
    expect(hello.prompt).toBe(await readFile(join(FIXTURE_TASKS, 'hello-file', 'instruction.md'), 'utf8'))
    expect(hello.metadata).toEqual({
      category: 'file-operations',
      difficulty: 'easy',
      tags: ['trivial', 'files'],
    })
    const expected = hello.expected as HarborExpected
    expect(expected).toMatchObject({
      hasSolution: true,
      testTimeoutSeconds: 30,
      agentTimeoutSeconds: 30,
      environmentSha256: null, // environment/ holds only a Dockerfile
    })
    expect(expected.testsSha256).toMatch(/^[0-9a-f]{64}$/)
    expect(expected.solutionSha256).toMatch(/^[0-9a-f]{64}$/)
    // Harbor's newer [task] keywords stand in for tags; inline tables and multi-line arrays parse.
    expect(tasks[0]!.metadata).toEqual({
      category: 'arithmetic',
      difficulty: 'easy',
      tags: ['arithmetic', 'reward-file'],
    })
    expect((tasks[2]!.expected as HarborExpected).environmentSha256).toMatch(/^[0-9a-f]{64}$/)
  })

  it('reads all of TOML: arrays of tables, dates, multi-line literal strings, dotted keys', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'full-toml', {
      'instruction.md': 'Do it.',
      'task.toml': [
        'version = "1.0"',
        'metadata.difficulty = "hard"',
        'metadata.created = 2025-06-01T12:00:00Z',
        'metadata.tags = ["a", "b"]',
        '[[metadata.authors]]',
        'name = "A"',
        '[[metadata.authors]]',
        'name = "B"',
        '[verifier]',
        "notes = '''",
        'C:\\raw\\path',
        "'''",
        'timeout_sec = 45.5',
        '[agent]',
        'timeout_sec = 1_200',
      ].join('\n'),
      'tests/test.sh': 'exit 0',
    })
    const [task] = await harborBenchmark({ path: root }).listTasks()
    expect(task!.metadata).toEqual({ difficulty: 'hard', tags: ['a', 'b'] })
    expect(task!.expected).toMatchObject({ testTimeoutSeconds: 45.5, agentTimeoutSeconds: 1200 })
  })

  it('takes a single task folder as a dataset of one', async () => {
    const tasks = await harborBenchmark({ path: join(FIXTURE_TASKS, 'hello-file') }).listTasks()
    expect(tasks.map((t) => t.id)).toEqual(['hello-file'])
  })

  it('defaults [verifier] timeout_sec to 120 s and leaves the agent timeout unset', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'bare', { 'instruction.md': 'Do it.', 'task.toml': '', 'tests/test.sh': 'exit 0' })
    const bench = harborBenchmark({ path: root })
    const [task] = await bench.listTasks()
    expect(task!.expected).toMatchObject({
      testTimeoutSeconds: 120,
      agentTimeoutSeconds: null,
      hasSolution: false,
    })
    expect(task!.metadata).toEqual({})
    expect(bench.taskLimits!(task!)).toBeUndefined()
  })

  it("makes [agent] timeout_sec the task's own time limit, for every runner", async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    expect(bench.taskLimits!(await taskById(bench, 'hello-file'))).toEqual({ maxWallSeconds: 30 })
    expect(bench.taskLimits!(await taskById(bench, 'answer-reward'))).toEqual({ maxWallSeconds: 60 })
  })

  it('changes a task checksum, and the dataset checksum, when a test or the solution changes', async () => {
    const root = await copyFixtures(tmp)
    const before = await harborBenchmark({ path: root }).listTasks()
    const infoBefore = await harborBenchmark({ path: root }).info()
    await writeFile(join(root, 'hello-file', 'tests', 'test.sh'), 'exit 0\n')
    await writeFile(join(root, 'answer-reward', 'solution', 'solve.sh'), 'echo 41 > answer.txt\n')
    const after = await harborBenchmark({ path: root }).listTasks()
    const infoAfter = await harborBenchmark({ path: root }).info()
    const sum = (tasks: typeof before, id: string) => tasks.find((t) => t.id === id)!.checksum
    expect(sum(after, 'hello-file')).not.toBe(sum(before, 'hello-file'))
    expect(sum(after, 'answer-reward')).not.toBe(sum(before, 'answer-reward'))
    expect(sum(after, 'upper-case-seed')).toBe(sum(before, 'upper-case-seed'))
    expect(infoAfter.datasetChecksum).not.toBe(infoBefore.datasetChecksum)
  })

  it('gives the same checksums for the same content wherever the folder is', async () => {
    const copy = await copyFixtures(tmp)
    const a = await harborBenchmark({ path: FIXTURE_TASKS }).listTasks()
    const b = await harborBenchmark({ path: copy }).listTasks()
    expect(b.map((t) => t.checksum)).toEqual(a.map((t) => t.checksum))
  })

  it('selects with ids and limit, says so in info().selection, and keeps the dataset checksum', async () => {
    const all = harborBenchmark({ path: FIXTURE_TASKS })
    const some = harborBenchmark({ path: FIXTURE_TASKS, ids: ['upper-case-seed', 'hello-file'], limit: 1 })
    expect((await some.listTasks()).map((t) => t.id)).toEqual(['hello-file'])
    const info = await some.info()
    expect(info.selection).toEqual({
      source: FIXTURE_TASKS,
      count: 1,
      ids: ['upper-case-seed', 'hello-file'],
      limit: 1,
    })
    expect(info.datasetChecksum).toBe((await all.info()).datasetChecksum)
    expect((await all.info()).selection).toBeUndefined()
  })

  it('filters on metadata, tags included', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    expect((await bench.listTasks({ difficulty: 'medium' })).map((t) => t.id)).toEqual(['upper-case-seed'])
    expect((await bench.listTasks({ tags: 'trivial' })).map((t) => t.id)).toEqual(['hello-file'])
    expect((await bench.listTasks({ id: ['hello-file', 'answer-reward'] })).length).toBe(2)
  })

  it('uses the configured id and version', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS, id: 'terminal-bench-mini', version: '2.0' })
    expect([bench.id, bench.version]).toEqual(['terminal-bench-mini', '2.0'])
    expect((await bench.listTasks())[0]!.benchmark).toBe('terminal-bench-mini')
    expect((await bench.info()).id).toBe('terminal-bench-mini')
  })
})

describe('harborBenchmark: malformed datasets are DATASET_INVALID, naming the file', () => {
  it('a task.toml that is not TOML, with line and column', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'broken', {
      'instruction.md': 'Do it.',
      'task.toml': '[verifier]\ntimeout_sec = fast\n',
      'tests/test.sh': 'exit 0',
    })
    const error = await rejection(Promise.resolve(harborBenchmark({ path: root }).listTasks()))
    expect(error.code).toBe('DATASET_INVALID')
    expect(error.location).toEqual({ file: join(root, 'broken', 'task.toml'), line: 2, col: 15 })
    expect(error.message).toContain(`${join(root, 'broken', 'task.toml')}:2:15`)
    expect(error.message).toContain('strings need quotes')
  })

  it.each([
    ['a duplicate key', 'timeout_sec = 1\n[verifier]\nx = 1\nx = 2\n', 4, 1],
    ['an unterminated string', '[metadata]\ndifficulty = "easy\n', 2, 19],
    ['a table defined twice', '[agent]\n[verifier]\n[agent]\n', 3, 2],
  ])('a task.toml with %s, with line and column', async (_what, text, line, col) => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'bad', { 'instruction.md': 'Do it.', 'task.toml': text, 'tests/test.sh': 'exit 0' })
    const error = await rejection(Promise.resolve(harborBenchmark({ path: root }).listTasks()))
    const file = join(root, 'bad', 'task.toml')
    expect(error.code).toBe('DATASET_INVALID')
    expect(error.location).toEqual({ file, line, col })
    expect(error.message).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:${col}: task\\.toml is not valid TOML: [^\\n]+$`,
      ),
    )
  })

  it('a task.toml larger than a configuration file', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'huge', {
      'instruction.md': 'Do it.',
      'task.toml': `# ${'x'.repeat(1024 * 1024)}\n`,
      'tests/test.sh': 'exit 0',
    })
    const error = await rejection(Promise.resolve(harborBenchmark({ path: root }).listTasks()))
    expect(error.location).toEqual({ file: join(root, 'huge', 'task.toml') })
    expect(error.message).toContain('larger than')
  })

  it('a task.toml with a field of the wrong type, naming the field', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'typed', {
      'instruction.md': 'Do it.',
      'task.toml': '[verifier]\ntimeout_sec = "fast"\n',
      'tests/test.sh': 'exit 0',
    })
    const error = await rejection(Promise.resolve(harborBenchmark({ path: root }).listTasks()))
    expect(error.code).toBe('DATASET_INVALID')
    expect(error.location).toEqual({ file: join(root, 'typed', 'task.toml'), path: 'verifier.timeout_sec' })
  })

  it.each([
    ['instruction.md', { 'task.toml': taskToml(), 'tests/test.sh': 'exit 0' }],
    ['task.toml', { 'instruction.md': 'Do it.', 'tests/test.sh': 'exit 0' }],
    ['tests/test.sh', { 'instruction.md': 'Do it.', 'task.toml': taskToml() }],
  ])('a task folder without %s', async (missing, files) => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'good', {
      'instruction.md': 'Fine.',
      'task.toml': taskToml(),
      'tests/test.sh': 'exit 0',
    })
    await writeTask(root, 'incomplete', files)
    const error = await rejection(Promise.resolve(harborBenchmark({ path: root }).listTasks()))
    expect(error.code).toBe('DATASET_INVALID')
    expect(error.location?.file).toBe(join(root, 'incomplete', missing))
    expect(error.message).toContain(join(root, 'incomplete', missing))
  })

  it('an empty instruction.md', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'empty', {
      'instruction.md': ' \n',
      'task.toml': taskToml(),
      'tests/test.sh': 'exit 0',
    })
    const error = await rejection(Promise.resolve(harborBenchmark({ path: root }).listTasks()))
    expect(error.location?.file).toBe(join(root, 'empty', 'instruction.md'))
  })

  it('a folder with no task folders, and a path that is not there', async () => {
    await mkdir(join(tmp, 'empty', 'not-a-task'), { recursive: true })
    const none = await rejection(Promise.resolve(harborBenchmark({ path: join(tmp, 'empty') }).listTasks()))
    expect(none.code).toBe('DATASET_INVALID')
    expect(none.message).toContain('no task folders')
    const missing = await rejection(Promise.resolve(harborBenchmark({ path: join(tmp, 'nope') }).info()))
    expect(missing.code).toBe('DATASET_INVALID')
    expect(missing.location?.file).toBe(join(tmp, 'nope'))
  })

  it('ids that are not in the dataset', async () => {
    const error = await rejection(
      Promise.resolve(harborBenchmark({ path: FIXTURE_TASKS, ids: ['hello-file', 'ghost'] }).listTasks()),
    )
    expect(error.code).toBe('DATASET_INVALID')
    expect(error.message).toContain('"ghost"')
    expect(error.message).toContain('hello-file')
  })

  it('reads the folder again after a failed load', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'late', { 'instruction.md': 'Do it.', 'tests/test.sh': 'exit 0' })
    const bench = harborBenchmark({ path: root })
    expect(isAgentEvalOpsError(await rejection(Promise.resolve(bench.listTasks())), 'DATASET_INVALID')).toBe(
      true,
    )
    await writeFile(join(root, 'late', 'task.toml'), taskToml())
    expect((await bench.listTasks()).map((t) => t.id)).toEqual(['late'])
  })
})

describe('harborBenchmark: options', () => {
  it('refuses unknown or invalid options as CONFIG_INVALID', () => {
    expect(() => harborBenchmark({ path: FIXTURE_TASKS, typo: 1 } as never)).toThrow(/typo/)
    expect(() => harborBenchmark({ path: '' })).toThrow(AgentEvalOpsError)
    expect(() => harborBenchmark({ path: 'x', limit: 0 })).toThrow(/limit/)
    expect(HarborOptions.parse({ path: 'x' })).toEqual({ path: 'x', id: 'harbor', version: '1' })
  })

  it('takes its grade timeout from grade_timeout_seconds, else 600 s', () => {
    expect(harborBenchmark({ path: 'x' }).gradeTimeoutSeconds).toBe(600)
    expect(harborBenchmark({ path: 'x', grade_timeout_seconds: 30 }).gradeTimeoutSeconds).toBe(30)
  })
})

describe('harborBenchmark: prepare and teardown', () => {
  it('makes a fresh workspace with the environment seed and without tests, solution or Dockerfile', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const task = await taskById(bench, 'upper-case-seed')
    const env = await bench.prepare!(task)
    try {
      expect(env.taskDir).toBe(join(FIXTURE_TASKS, 'upper-case-seed'))
      expect((await readdir(env.workdir!, { recursive: true })).sort()).toEqual(['data', 'data/words.txt'])
      expect(await readFile(join(env.workdir!, 'data', 'words.txt'), 'utf8')).toBe(
        'alpha beta\ngamma\ndelta epsilon zeta\n',
      )
      // Nothing of the grading material is next to it either, before grading.
      expect(await readdir(join(env.workdir!, '..'))).toEqual(['app'])
      const other = await bench.prepare!(task)
      expect(other.workdir).not.toBe(env.workdir)
      await bench.teardown!(task, other)
    } finally {
      await bench.teardown!(task, env)
    }
    expect(existsSync(join(env.workdir!, '..'))).toBe(false)
    // Already gone: no error.
    await bench.teardown!(task, env)
  })

  it('teardown leaves alone a workdir it did not make', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const task = await taskById(bench, 'hello-file')
    const mine = join(tmp, 'app')
    await mkdir(mine)
    await bench.teardown!(task, { workdir: mine })
    expect(existsSync(mine)).toBe(true)
  })

  it('refuses a task it did not list', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const task = { ...(await taskById(bench, 'hello-file')), id: 'elsewhere' }
    const error = await rejection(Promise.resolve(bench.prepare!(task)))
    expect(error.code).toBe('TASK_INVALID')
  })
})

describe('the reward rule', () => {
  const run = (exitCode: number | null, stdout = '') => ({
    exitCode,
    signal: exitCode === null ? ('SIGSEGV' as const) : null,
    stdoutTail: stdout,
    stderrTail: '',
  })
  const valid = (value: number) => ({ kind: 'valid' as const, value, file: 'reward.txt' })

  it.each([
    ['exit 0, no reward', run(0), { kind: 'none' as const }, true, 1, []],
    ['exit 0, reward 1', run(0), valid(1), true, 1, []],
    ['exit 0, reward 0.25', run(0), valid(0.25), false, 0.25, ['reward_below_one']],
    ['exit 0, reward 0', run(0), valid(0), false, 0, ['reward_below_one']],
    ['exit 1, no reward', run(1), { kind: 'none' as const }, false, 0, ['tests_failed']],
    ['exit 1, reward 0.5', run(1), valid(0.5), false, 0.5, ['tests_failed']],
    ['exit 1, reward 1 (contradiction)', run(1), valid(1), false, 0, ['tests_failed']],
    ['killed by a signal', run(null), { kind: 'none' as const }, false, 0, ['tests_failed']],
    [
      'exit 0, invalid reward',
      run(0),
      { kind: 'invalid' as const, reason: 'x', file: 'f' },
      false,
      0,
      ['reward_invalid'],
    ],
  ])('%s', (_name, r, reward, passed, score, types) => {
    const out = verdict(r, reward)
    expect({ passed: out.passed, score: out.score }).toEqual({ passed, score })
    expect((out.findings ?? []).map((f) => f.type)).toEqual(types)
  })

  it('quotes the end of the test output, shortly, in the explanation', () => {
    const out = verdict(run(1, `${'x'.repeat(5000)}\nAssertionError: expected 42`), { kind: 'none' })
    expect(out.explanation).toContain('test.sh exited with code 1')
    expect(out.explanation).toContain('AssertionError: expected 42')
    expect(out.explanation.length).toBeLessThan(600)
    expect(out.findings?.[0]?.message).toContain('AssertionError: expected 42')
  })

  it('reads reward.txt before reward.json, and refuses what is not one number in [0, 1]', async () => {
    const dir = join(tmp, 'verifier')
    await mkdir(dir)
    expect(await readReward(dir)).toEqual({ kind: 'none' })
    const cases: [string, string, number | string][] = [
      ['reward.json', '{"reward": 0.75}', 0.75],
      ['reward.json', '{"accuracy": 0.5}', 0.5],
      ['reward.json', '0.2', 0.2],
      ['reward.json', '{"a": 1, "b": 0}', 'none named "reward"'],
      ['reward.json', '{"reward": "1"}', 'not a number'],
      ['reward.txt', ' 1.0\n', 1],
      ['reward.txt', '0', 0],
      ['reward.txt', 'pass', 'not a number'],
      ['reward.txt', '2', 'outside [0, 1]'],
      ['reward.txt', '-0.5', 'outside [0, 1]'],
      ['reward.txt', '1'.repeat(5000), 'larger than'],
    ]
    for (const [name, text, want] of cases) {
      await rm(join(dir, 'reward.txt'), { force: true })
      await writeFile(join(dir, name), text)
      const reward = await readReward(dir)
      if (typeof want === 'number')
        expect(reward).toEqual({ kind: 'valid', value: want, file: join(dir, name) })
      else expect(reward).toMatchObject({ kind: 'invalid', reason: expect.stringContaining(want) as unknown })
    }
  })

  it("bounds the task's verifier timeout by the grade timeout, leaving grading room", () => {
    expect(testTimeout({ testTimeoutSeconds: 120 }, { timeoutSeconds: 600 })).toEqual({
      seconds: 120,
      capped: false,
    })
    expect(testTimeout({ testTimeoutSeconds: 1800 }, { timeoutSeconds: 600 })).toEqual({
      seconds: 595,
      capped: true,
    })
    expect(testTimeout({ testTimeoutSeconds: 30 }, { timeoutSeconds: 4 })).toEqual({
      seconds: 2,
      capped: true,
    })
  })
})
