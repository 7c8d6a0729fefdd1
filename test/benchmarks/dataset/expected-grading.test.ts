import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  defineTask,
  type EvaluatorContext,
  type EvaluatorOutput,
  type GradeOutput,
  type TaskSpec,
} from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { datasetBenchmark, type DatasetBenchmark } from '../../../src/benchmarks/index.ts'
import { NOT_GRADED } from '../../../src/benchmarks/dataset/grader.ts'
import { matchesExpected, type MatchesExpectedOptions } from '../../../src/evaluators/index.ts'
import { baseOptions, inlineRunner } from '../../engine/helpers.ts'
import { errorOf, gradeContext, tempFolder, viewOf } from './helpers.ts'

let tmp: Awaited<ReturnType<typeof tempFolder>>
beforeAll(async () => {
  tmp = await tempFolder()
})
afterAll(async () => {
  await tmp.remove()
})
afterEach(() => {
  vi.restoreAllMocks()
})

let files = 0
/** A dataset of these tasks (one JSON object per line), as an adapter. */
async function dataset(tasks: object[], options: object = {}): Promise<DatasetBenchmark> {
  const path = await tmp.write(`d${files++}.jsonl`, tasks.map((t) => JSON.stringify(t)).join('\n'))
  return datasetBenchmark({ path, id: 'qa', ...options })
}

async function taskOf(adapter: DatasetBenchmark, id: string): Promise<TaskSpec> {
  const task = (await adapter.listTasks()).find((t) => t.id === id)
  expect(task, id).toBeDefined()
  return task!
}

async function grade(adapter: DatasetBenchmark, id: string, answer: string | null): Promise<GradeOutput> {
  expect(adapter.grade, 'the benchmark grades').toBeTypeOf('function')
  return adapter.grade!(viewOf(await taskOf(adapter, id), answer), gradeContext)
}

function evaluatorContext(warnings: string[]): EvaluatorContext {
  return { signal: new AbortController().signal, emit: () => 0, warn: (m) => warnings.push(m) }
}

async function evaluate(
  task: TaskSpec,
  answer: string | null,
  opts: MatchesExpectedOptions = {},
  warnings: string[] = [],
): Promise<EvaluatorOutput> {
  return matchesExpected(opts).evaluate(viewOf(task, answer), evaluatorContext(warnings))
}

describe('dataset: a task with expected and no grader is graded (issue 17, point 3)', () => {
  it('grades "expected": "42" exactly, with the exact grader\'s trimming, when nothing names a grader', async () => {
    const adapter = await dataset([{ id: 'q', prompt: 'What is 6 * 7?', expected: '42' }])
    expect((await grade(adapter, 'q', '42')).passed).toBe(true)
    expect((await grade(adapter, 'q', ' 42\n')).passed).toBe(true)
    const wrong = await grade(adapter, 'q', '43')
    expect(wrong).toMatchObject({ passed: false, score: 0, explanation: 'expected "42", got "43"' })
    expect(wrong.findings?.map((f) => f.type)).toEqual(['wrong_answer'])
    // Exact means exact: case and surrounding words count.
    expect((await grade(adapter, 'q', 'The answer is 42')).passed).toBe(false)
    expect((await grade(adapter, 'q', null)).passed).toBe(false)
    expect((await taskOf(adapter, 'q')).match).toEqual({
      type: 'exact',
      value: '42',
      trim: true,
      caseInsensitive: false,
    })
  })

  it('grades by the shape of expected: a number numerically, { contains }, { regex }, { json }, { number }', async () => {
    const adapter = await dataset([
      { id: 'num', prompt: '?', expected: 42 },
      { id: 'has', prompt: '?', expected: { contains: 'Paris' } },
      { id: 're', prompt: '?', expected: { regex: '^\\s*1969\\b', flags: 'm' } },
      { id: 'js', prompt: '?', expected: { json: { x: 1, y: 2 } } },
      { id: 'tol', prompt: '?', expected: { number: 3.14, tolerance: 0.01 } },
      { id: 'rel', prompt: '?', expected: { number: 200, relativeTolerance: 0.05 } },
    ])
    const cases: [string, string, boolean][] = [
      ['num', '42.0', true],
      ['num', 'so the total is 42', true],
      ['num', '41', false],
      ['has', 'It is Paris, France', true],
      ['has', 'It is Lyon', false],
      ['re', '1969, in July', true],
      ['re', 'in 1969', false],
      ['js', '{"y":2,"x":1}', true],
      ['js', '{"x":1}', false],
      ['tol', '3.141', true],
      ['tol', '3.2', false],
      ['rel', '208', true],
      ['rel', '215', false],
    ]
    for (const [id, answer, passed] of cases) {
      expect((await grade(adapter, id, answer)).passed, `${id}: ${answer}`).toBe(passed)
    }
  })

  it("lets the benchmark's default grader and the task's own grader say otherwise", async () => {
    const tasks = [
      { id: 'q', prompt: '?', expected: '42' },
      { id: 'own', prompt: '?', expected: 'Paris', grader: { type: 'exact', case_insensitive: true } },
    ]
    const adapter = await dataset(tasks, { grader: { type: 'contains' } })
    expect((await grade(adapter, 'q', 'The answer is 42')).passed).toBe(true)
    expect((await grade(adapter, 'own', 'PARIS')).passed).toBe(true)
    expect((await grade(adapter, 'own', 'It is Paris')).passed).toBe(false)
  })

  it('opts out only when told: grader none on the task, or as the default, leaves expected to the evaluators', async () => {
    const task = { id: 'q', prompt: '?', expected: '42' }
    const ownNone = await dataset([
      { ...task, grader: { type: 'none' } },
      { id: 'other', prompt: '?', expected: '1' },
    ])
    expect((await grade(ownNone, 'q', 'wrong')).explanation).toBe(NOT_GRADED)
    expect((await taskOf(ownNone, 'q')).match).toBeUndefined()
    const defaultNone = await dataset([task], { grader: { type: 'none' } })
    expect(defaultNone.grade).toBeUndefined()
  })

  it('keeps a task with no expected and no grader ungraded: no grade() alone, a pass that says so beside graded tasks', async () => {
    const alone = await dataset([{ id: 'chat', prompt: 'Say hello.' }])
    expect(alone.grade).toBeUndefined()
    const mixed = await dataset([
      { id: 'chat', prompt: 'Say hello.' },
      { id: 'q', prompt: '?', expected: '42' },
    ])
    expect(await grade(mixed, 'chat', 'hello')).toEqual({ score: 1, passed: true, explanation: NOT_GRADED })
  })

  it('refuses, when loaded, an expected value no grader can check unless the task opts out', async () => {
    const error = await errorOf(async () =>
      (await dataset([{ id: 'state', prompt: '?', expected: { files: ['a.txt'] } }])).listTasks(),
    )
    expect(error.message).toContain('task "state"')
    expect(error.message).toContain('names no way to match an answer, and it names no grader')
    expect(error.location).toMatchObject({ line: 1 })
    expect(error.hint).toContain('grader: { type: none }')
    const schema = await errorOf(async () =>
      (await dataset([{ id: 's', prompt: '?', expected: { jsonSchema: { type: 'object' } } }])).listTasks(),
    )
    expect(schema.message).toContain('jsonSchema')
    const optedOut = await dataset([
      { id: 'state', prompt: '?', expected: { files: ['a.txt'] }, grader: { type: 'none' } },
    ])
    expect((await optedOut.listTasks()).map((t) => t.id)).toEqual(['state'])
  })
})

describe('matchesExpected() follows the match a dataset task declares (issue 17, point 4)', () => {
  it('passes a contains-graded task as its grader does, where it used to match exactly', async () => {
    const adapter = await dataset([{ id: 'fr', prompt: 'Capital of France?', expected: 'Paris' }], {
      grader: { type: 'contains' },
    })
    const task = await taskOf(adapter, 'fr')
    const answer = 'The capital of France is Paris.'
    expect((await grade(adapter, 'fr', answer)).passed).toBe(true)
    const score = await evaluate(task, answer)
    expect(score.passed).toBe(true)
    expect(score.explanation).toContain('contains')
  })

  it('agrees with the grader on every grader type, answer by answer', async () => {
    const adapter = await dataset([
      { id: 'ex', prompt: '?', expected: 'Tokyo', grader: { type: 'exact', case_insensitive: true } },
      { id: 'raw', prompt: '?', expected: 'Tokyo', grader: { type: 'exact', trim: false } },
      { id: 'has', prompt: '?', expected: 'jupiter', grader: { type: 'contains', case_insensitive: true } },
      { id: 're', prompt: '?', grader: { type: 'regex', pattern: '^19\\d\\d$' } },
      { id: 'num', prompt: '?', expected: '3.14', grader: { type: 'numeric', tolerance: 0.005 } },
      { id: 'js', prompt: '?', expected: { x: 1 }, grader: { type: 'json' } },
    ])
    const answers: Record<string, string[]> = {
      ex: ['tokyo', ' TOKYO ', 'Kyoto'],
      raw: ['Tokyo', ' Tokyo', 'tokyo'],
      has: ['JUPITER is largest', 'Saturn'],
      re: ['1969', '2001', 'in 1969'],
      num: ['pi is 3.142', '3.2', 'pi'],
      js: ['{"x":1}', '{"x":2}', 'x=1'],
    }
    let disagreements = 0
    for (const [id, list] of Object.entries(answers)) {
      const task = await taskOf(adapter, id)
      for (const answer of list) {
        const graded = (await grade(adapter, id, answer)).passed
        const evaluated = (await evaluate(task, answer)).passed
        if (graded !== evaluated) disagreements++
        expect(evaluated, `${id}: ${JSON.stringify(answer)}`).toBe(graded)
      }
    }
    expect(disagreements).toBe(0)
  })

  it("follows the shape of expected for a task that declares no match (the toy's, an inline one)", async () => {
    const task = defineTask({ id: 't', benchmark: 'b', prompt: '?', expected: 'Paris' })
    expect((await evaluate(task, 'The capital is Paris')).passed).toBe(false)
    expect((await evaluate(task, 'paris', { caseInsensitive: true })).passed).toBe(true)
    const contains = defineTask({ id: 'c', benchmark: 'b', prompt: '?', expected: { contains: 'Paris' } })
    expect((await evaluate(contains, 'The capital is Paris')).passed).toBe(true)
  })

  it('lets an explicit caseInsensitive win over the declared match, and warns once per run naming both', async () => {
    const console = vi.spyOn(globalThis.console, 'warn').mockImplementation(() => {})
    const adapter = await dataset([
      { id: 'a', prompt: '?', expected: 'Tokyo' },
      { id: 'b', prompt: '?', expected: 'Paris' },
    ])
    const evaluator = matchesExpected({ caseInsensitive: true })
    const warnings: string[] = []
    const ctx = evaluatorContext(warnings)
    const results: boolean[] = []
    for (const id of ['a', 'b', 'a']) {
      const task = await taskOf(adapter, id)
      results.push((await evaluator.evaluate(viewOf(task, id === 'a' ? 'tokyo' : 'PARIS'), ctx)).passed)
    }
    expect(results).toEqual([true, true, true])
    // The grader stays case-sensitive: the two checks of expected disagree, and the run is told so once.
    expect((await grade(adapter, 'a', 'tokyo')).passed).toBe(false)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('two checks of expected disagree')
    expect(warnings[0]).toContain('exact (trimmed, case-sensitive)')
    expect(warnings[0]).toContain('exact (trimmed, case-insensitive)')
    expect(warnings[0]).toContain('"matches-expected"')
    expect(console).toHaveBeenCalledTimes(1)
  })

  it('does not warn when the explicit option says what the grader says', async () => {
    vi.spyOn(globalThis.console, 'warn').mockImplementation(() => {})
    const adapter = await dataset([{ id: 'a', prompt: '?', expected: 'Tokyo', grader: { type: 'contains' } }])
    const warnings: string[] = []
    expect(
      (await evaluate(await taskOf(adapter, 'a'), 'in Tokyo', { caseInsensitive: false }, warnings)).passed,
    ).toBe(true)
    expect(warnings).toEqual([])
  })
})

describe('a contains-graded dataset task through the engine (issue 17, point 4)', () => {
  async function trial(
    adapter: DatasetBenchmark,
    id: string,
    answer: string,
    opts: MatchesExpectedOptions,
    n: number,
    evaluator = matchesExpected(opts),
  ) {
    const runner = inlineRunner((ctx) => {
      ctx.emit('agent.final_answer', { answer })
      return { finalAnswer: answer }
    })
    return runTrial(
      baseOptions({
        benchmark: await adapter.info(),
        task: await taskOf(adapter, id),
        trial: n,
        runner,
        grade: adapter.grade!,
        evaluators: [evaluator],
      }),
    )
  }

  it('passes both the grade and matchesExpected(), so the trial passes', async () => {
    const adapter = await dataset([{ id: 'fr', prompt: 'Capital of France?', expected: 'Paris' }], {
      grader: { type: 'contains' },
    })
    const { record } = await trial(adapter, 'fr', 'It is Paris.', {}, 0)
    expect(record.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([
      ['qa-grade', true],
      ['matches-expected', true],
    ])
    expect(record.outcome).toBe('passed')
    expect(record.warnings).toEqual([])
  })

  it('records the disagreement in the first trial that meets it, not in every trial', async () => {
    vi.spyOn(globalThis.console, 'warn').mockImplementation(() => {})
    const adapter = await dataset([{ id: 'fr', prompt: '?', expected: 'Paris' }], {
      grader: { type: 'contains' },
    })
    const evaluator = matchesExpected({ caseInsensitive: true })
    const records = []
    for (const n of [0, 1, 2]) records.push((await trial(adapter, 'fr', 'PARIS', {}, n, evaluator)).record)
    expect(
      records.map((r) => r.warnings.filter((w) => w.includes('two checks of expected disagree')).length),
    ).toEqual([1, 0, 0])
    // The verdicts disagree, as the warning says: the grade fails the case-sensitive match, the evaluator passes.
    expect(records[0]!.scores.map((s) => s.passed)).toEqual([false, true])
  })
})
