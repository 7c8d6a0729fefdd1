import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GradeOutput, TaskSpec } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { datasetBenchmark, GraderSpec, type DatasetBenchmark } from '../../../src/benchmarks/index.ts'
import { bindGrader, gradeTrial, NOT_GRADED } from '../../../src/benchmarks/dataset/grader.ts'
import { baseOptions, inlineRunner } from '../../engine/helpers.ts'
import { errorOf, fixture, gradeContext, tempFolder, viewOf } from './helpers.ts'

let tmp: Awaited<ReturnType<typeof tempFolder>>
beforeAll(async () => {
  tmp = await tempFolder()
})
afterAll(async () => {
  await tmp.remove()
})

/** Grades `answer` for the task `taskId` of `adapter`. */
async function grade(adapter: DatasetBenchmark, taskId: string, answer: string | null): Promise<GradeOutput> {
  const task = (await adapter.listTasks()).find((t) => t.id === taskId)
  expect(task, taskId).toBeDefined()
  expect(adapter.grade).toBeTypeOf('function')
  return adapter.grade!(viewOf(task!, answer), gradeContext)
}

/** Grades `answer` against `expected` with a grader spec (as it would appear in a dataset file). */
function gradeWith(spec: unknown, expected: TaskSpec['expected'], answer: string | null): GradeOutput {
  const task = { id: 't', expected } as TaskSpec
  return gradeTrial(bindGrader(GraderSpec.parse(spec), expected), viewOf(task, answer))
}

const arith = () => datasetBenchmark({ path: fixture('arith.jsonl'), grader: { type: 'exact' } })
const trivia = () => datasetBenchmark({ path: fixture('trivia.yaml'), grader: { type: 'exact' } })
const DATASETS = { arith, trivia }

describe('dataset graders on concrete answers', () => {
  // [dataset (default grader: exact), task, answer, passed, finding type when failed]
  const cases: [keyof typeof DATASETS, string, string | null, boolean, string?][] = [
    // exact (the default grader of arith): trimmed, case-sensitive
    ['arith', 'add-1', '4', true],
    ['arith', 'add-1', '  4\n', true],
    ['arith', 'add-1', '5', false, 'wrong_answer'],
    ['arith', 'add-1', 'The answer is 4', false, 'wrong_answer'],
    ['trivia', 'capital-de', 'berlin', false, 'wrong_answer'],
    ['trivia', 'capital-jp', 'TOKYO', true],
    // numeric, tolerance 1e-9 by default and 0.0005 when given
    ['arith', 'mul-1', 'So the answer is 42.', true],
    ['arith', 'mul-1', '42.5', false, 'wrong_answer'],
    ['arith', 'mul-1', 'forty-two', false, 'unparseable'],
    ['arith', 'div-1', '0.3333', true],
    ['arith', 'div-1', '0.334', false, 'wrong_answer'],
    ['trivia', 'pi', '3.14159', true],
    // contains (case-insensitive in arith, case-sensitive in trivia)
    ['arith', 'capital-fr', 'It is PARIS, of course.', true],
    ['arith', 'capital-fr', 'Lyon', false, 'wrong_answer'],
    ['trivia', 'largest-planet', 'jupiter', false, 'wrong_answer'],
    // regex, the pattern being the task's expected value
    ['arith', 'moon-year', '1969, with Apollo 11', true],
    ['arith', 'moon-year', 'In 1969', false, 'wrong_answer'],
    // json: canonical deep equality, key order free
    ['arith', 'json-point', '{"y": 2, "x": 1}', true],
    ['arith', 'json-point', '{"x": 1}', false, 'wrong_answer'],
    ['arith', 'json-point', 'x=1, y=2', false, 'unparseable'],
    ['trivia', 'inner-planets', '["Mercury","Venus","Earth","Mars"]', true],
    ['trivia', 'inner-planets', '["Venus","Mercury","Earth","Mars"]', false, 'wrong_answer'],
    // no answer, or an empty one
    ['arith', 'add-1', null, false, 'no_answer'],
    ['arith', 'mul-1', '   ', false, 'no_answer'],
  ]

  it.each(cases)('%s %s, answer %j → passed %s', async (dataset, taskId, answer, passed, finding) => {
    const out = await grade(DATASETS[dataset](), taskId, answer)
    expect(out.passed).toBe(passed)
    expect(out.score).toBe(passed ? 1 : 0)
    expect(out.explanation.length).toBeGreaterThan(0)
    if (passed) {
      expect(out.findings ?? []).toEqual([])
    } else {
      expect(out.findings?.map((f) => f.type)).toEqual([finding])
      expect(out.findings?.[0]?.message.length).toBeGreaterThan(0)
    }
    // The score rests on the final answer: the helper's trace has it at step 1.
    expect(out.citations).toEqual(answer === null ? [] : [1])
  })

  it('says what was expected and what came', async () => {
    const out = await grade(arith(), 'add-1', '5')
    expect(out.explanation).toBe('expected "4", got "5"')
    expect((await grade(arith(), 'mul-1', '41')).explanation).toContain('expected 42')
    expect((await grade(arith(), 'add-1', null)).explanation).toBe('no final answer')
  })

  it('cuts a long answer short in the explanation', async () => {
    const out = await grade(arith(), 'add-1', 'x'.repeat(5000))
    expect(out.explanation).toContain('(5000 chars)')
    expect(out.explanation.length).toBeLessThan(300)
  })

  it('passes a task whose grader is none, saying it was not graded', async () => {
    const out = await grade(arith(), 'tool-weather', 'anything at all')
    expect(out).toEqual({ score: 1, passed: true, explanation: NOT_GRADED })
    expect((await grade(trivia(), 'haiku', null)).passed).toBe(true)
  })

  it('takes the expected value from the spec when it gives one, over the task', () => {
    expect(gradeWith({ type: 'exact', value: 'yes' }, 'no', 'yes').passed).toBe(true)
    expect(gradeWith({ type: 'contains', value: 'cat' }, 'dog', 'a cat sat').passed).toBe(true)
    expect(gradeWith({ type: 'numeric', value: 10 }, 3, '10').passed).toBe(true)
    expect(gradeWith({ type: 'json', value: [1, 2] }, { a: 1 }, '[1,2]').passed).toBe(true)
    expect(gradeWith({ type: 'regex', pattern: '^ok$', flags: 'i' }, 'unused', 'OK').passed).toBe(true)
  })

  it('honours trim: false, case_insensitive, and a numeric expected given as text', () => {
    expect(gradeWith({ type: 'exact', trim: false }, '4', ' 4').passed).toBe(false)
    expect(gradeWith({ type: 'exact', case_insensitive: true }, 'Paris', 'PARIS').passed).toBe(true)
    expect(gradeWith({ type: 'exact' }, 4, '4').passed).toBe(true)
    expect(gradeWith({ type: 'numeric' }, '2.5', '2.5000000001').passed).toBe(true)
    expect(gradeWith({ type: 'numeric' }, '2.5', '2.50001').passed).toBe(false)
    expect(gradeWith({ type: 'numeric', tolerance: 0.1 }, 2.5, '2.55').passed).toBe(true)
  })
})

describe('dataset: whether there is a grade() at all', () => {
  it('has none when no task is graded: none has an expected value or a grader, or the options opt out', async () => {
    const noExpected = await tmp.write('plain.jsonl', '{"id":"greet","prompt":"Say hello."}\n')
    expect(datasetBenchmark({ path: noExpected }).grade).toBeUndefined()
    expect(
      datasetBenchmark({ path: fixture('ungraded.yml'), grader: { type: 'none' } }).grade,
    ).toBeUndefined()
  })

  it('has one when some task is graded, and then ungraded tasks pass saying so', async () => {
    // farewell gives an expected value, so it is graded (exactly) though nothing names a grader.
    const ungraded = datasetBenchmark({ path: fixture('ungraded.yml') })
    expect(ungraded.grade).toBeTypeOf('function')
    expect((await grade(ungraded, 'greet', 'hi')).explanation).toBe(NOT_GRADED)
    const adapter = datasetBenchmark({ path: fixture('arith.jsonl') })
    // tool-weather says grader none; mul-1 names its own.
    expect((await grade(adapter, 'tool-weather', 'wrong')).explanation).toBe(NOT_GRADED)
    expect((await grade(adapter, 'mul-1', 'wrong')).passed).toBe(false)
  })

  it('has one when the options give a default grader, without reading the file', () => {
    expect(datasetBenchmark({ path: 'missing.jsonl', grader: { type: 'exact' } }).grade).toBeTypeOf(
      'function',
    )
  })

  it('answers undefined rather than throwing when the file cannot be read (listTasks reports it)', async () => {
    const adapter = datasetBenchmark({ path: 'missing.jsonl' })
    expect(adapter.grade).toBeUndefined()
    await errorOf(() => adapter.listTasks())
  })

  it('refuses to grade a task that is not in the dataset (could not grade)', async () => {
    const adapter = arith()
    const [task] = await datasetBenchmark({ path: fixture('trivia.yaml') }).listTasks()
    await errorOf(() => adapter.grade!(viewOf(task!, 'x'), gradeContext))
  })

  it('passes its grade timeout on to the engine', () => {
    expect(datasetBenchmark({ path: 'x.jsonl', grade_timeout_seconds: 5 }).gradeTimeoutSeconds).toBe(5)
    expect(datasetBenchmark({ path: 'x.jsonl' }).gradeTimeoutSeconds).toBeUndefined()
  })
})

describe('dataset grade() through the engine', () => {
  async function trialOf(adapter: DatasetBenchmark, taskId: string, answer: string) {
    const task = (await adapter.listTasks()).find((t) => t.id === taskId)!
    const runner = inlineRunner((ctx) => {
      ctx.emit('agent.model_call', { model: 'm' }, { tokens: 5 })
      ctx.emit('agent.final_answer', { answer })
      return { finalAnswer: answer }
    })
    return runTrial(
      baseOptions({
        benchmark: await adapter.info(),
        task,
        runner,
        grade: adapter.grade!.bind(adapter),
        gradeTimeoutSeconds: adapter.gradeTimeoutSeconds,
      }),
    )
  }

  it('scores a right answer as a passed arith-grade deterministic score', async () => {
    const adapter = arith()
    const { record, events } = await trialOf(adapter, 'add-1', '4')
    expect(record.outcome).toBe('passed')
    expect(record.benchmark).toEqual(await adapter.info())
    expect(record.scores).toHaveLength(1)
    expect(record.scores[0]).toMatchObject({
      evaluatorId: 'arith-grade',
      kind: 'deterministic',
      score: 1,
      passed: true,
      error: null,
      citations: [1],
    })
    expect(events.some((e) => e.kind === 'evaluator.score' && e.payload.evaluatorId === 'arith-grade')).toBe(
      true,
    )
  })

  it('scores a wrong answer as failed, with the finding', async () => {
    const { record } = await trialOf(arith(), 'mul-1', 'forty-two')
    expect(record.outcome).toBe('failed')
    expect(record.scores[0]).toMatchObject({ evaluatorId: 'arith-grade', score: 0, passed: false })
    expect(record.scores[0]!.findings.map((f) => f.type)).toEqual(['unparseable'])
  })

  it('passes an ungraded task of a graded benchmark, and names the grade by the benchmark id', async () => {
    const adapter = datasetBenchmark({ path: fixture('trivia.yaml'), id: 'quiz' })
    const { record } = await trialOf(adapter, 'haiku', 'Tests run green at dawn')
    expect(record.outcome).toBe('passed')
    expect(record.scores[0]).toMatchObject({ evaluatorId: 'quiz-grade', explanation: NOT_GRADED })
    expect((await trialOf(adapter, 'capital-jp', 'Kyoto')).record.outcome).toBe('failed')
  })
})
