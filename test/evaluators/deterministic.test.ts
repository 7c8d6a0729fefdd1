import { describe, expect, it } from 'vitest'
import type { JsonValue, TrialView } from '../../src/core/index.ts'
import {
  contains,
  exactMatch,
  extractNumber,
  jsonEqual,
  jsonSchemaValid,
  matchesExpected,
  numericMatch,
  predicate,
  regexMatch,
} from '../../src/evaluators/index.ts'
import { ev, trace, viewOf } from './trace-fixture.ts'
import { configError, evaluateChecked } from './evaluate.ts'

/** A trial whose answer is `answer` (step 2), against a task expecting `expected`. */
function answered(answer: string, expected?: JsonValue): TrialView {
  return viewOf(trace(ev.plan('think'), ev.model(), ev.answer(answer), ev.terminal('completed')), {
    task: expected === undefined ? {} : { expected },
  })
}

function noAnswer(expected: JsonValue): TrialView {
  return viewOf(trace(ev.model(), ev.terminal('limit_tokens')), { task: { expected } })
}

const score = evaluateChecked

describe('exactMatch', () => {
  it('passes an equal answer after trimming, scoring 1 and citing the final answer step', async () => {
    const s = await score(exactMatch(), answered('  42\n', '42'))
    expect(s).toMatchObject({ score: 1, passed: true, costUsd: 0, citations: [2] })
    expect(s.explanation).toContain('"42"')
  })

  it('fails a different answer and says what was expected and what came', async () => {
    const s = await score(exactMatch(), answered('41', '42'))
    expect(s).toMatchObject({ score: 0, passed: false, citations: [2] })
    expect(s.explanation).toBe('expected "42", got "41"')
  })

  it('is case-sensitive unless asked, and does not trim when trim is false', async () => {
    expect((await score(exactMatch(), answered('Paris', 'paris'))).passed).toBe(false)
    expect((await score(exactMatch({ caseInsensitive: true }), answered('Paris', 'paris'))).passed).toBe(true)
    expect((await score(exactMatch({ trim: false }), answered(' 42', '42'))).passed).toBe(false)
  })

  it('prefers a fixed expectation over the task and takes an id override', async () => {
    const evaluator = exactMatch({ id: 'answer-is-7', expected: '7' })
    expect(evaluator).toMatchObject({ id: 'answer-is-7', kind: 'deterministic' })
    expect((await score(evaluator, answered('7', '42'))).passed).toBe(true)
  })

  it('fails a missing final answer with "no final answer" and no citations', async () => {
    const s = await score(exactMatch(), noAnswer('42'))
    expect(s).toEqual({ score: 0, passed: false, costUsd: 0, explanation: 'no final answer', citations: [] })
  })

  it('truncates long answers in the explanation', async () => {
    const s = await score(exactMatch(), answered('x'.repeat(5000), '42'))
    expect(s.explanation.length).toBeLessThan(300)
    expect(s.explanation).toContain('(5000 chars)')
  })

  it('cites the last final answer when there are several', async () => {
    const view = viewOf(trace(ev.answer('1'), ev.model(), ev.answer('42')), { task: { expected: '42' } })
    expect((await score(exactMatch(), view)).citations).toEqual([2])
  })

  it('rejects a task without a string expectation as a configuration error', async () => {
    expect(await configError(() => exactMatch().evaluate(answered('42')))).toContain('task-test')
    expect(await configError(() => exactMatch().evaluate(answered('42', { contains: '4' })))).toContain(
      'contains',
    )
  })
})

describe('contains', () => {
  it('passes when the answer contains the task text, fails naming both otherwise', async () => {
    expect(await score(contains(), answered('The capital is Paris.', { contains: 'Paris' }))).toMatchObject({
      score: 1,
      passed: true,
      citations: [2],
    })
    const s = await score(contains(), answered('It is Lyon.', { contains: 'Paris' }))
    expect(s.passed).toBe(false)
    expect(s.explanation).toBe('expected the answer to contain "Paris", got "It is Lyon."')
  })

  it('accepts a plain string expectation, a fixed needle and case-insensitivity', async () => {
    expect((await score(contains(), answered('it is 42.', '42'))).passed).toBe(true)
    expect(
      (await score(contains({ expected: 'PARIS', caseInsensitive: true }), answered('paris', 'x'))).passed,
    ).toBe(true)
  })
})

describe('regexMatch', () => {
  it('matches the task pattern, with its flags', async () => {
    expect(
      (await score(regexMatch(), answered('1969-07-20', { regex: '^\\d{4}-\\d{2}-\\d{2}$' }))).passed,
    ).toBe(true)
    expect((await score(regexMatch(), answered('July 20', { regex: '^\\d{4}' }))).explanation).toBe(
      'expected a match for /^\\d{4}/, got "July 20"',
    )
    expect((await score(regexMatch(), answered('YES', { regex: '^yes$', flags: 'i' }))).passed).toBe(true)
  })

  it('judges every trial alike even with a global RegExp', async () => {
    const evaluator = regexMatch({ pattern: /42/g })
    expect((await score(evaluator, answered('42'))).passed).toBe(true)
    expect((await score(evaluator, answered('42'))).passed).toBe(true)
  })

  it('rejects an invalid fixed pattern when configured, and an invalid task pattern when evaluated', async () => {
    expect(await configError(() => regexMatch({ pattern: '(' }))).toContain('invalid regular expression')
    expect(await configError(() => regexMatch().evaluate(answered('x', { regex: '[' })))).toContain('/[/')
  })
})

describe('jsonEqual', () => {
  it('compares canonically: key order does not matter, values do', async () => {
    const expected = { json: { name: 'Ada', born: 1815, tags: ['a', 'b'] } }
    expect(
      (await score(jsonEqual(), answered('{"tags":["a","b"],"born":1815,"name":"Ada"}', expected))).passed,
    ).toBe(true)
    const s = await score(jsonEqual(), answered('{"name":"Ada","born":1816,"tags":["a","b"]}', expected))
    expect(s.passed).toBe(false)
    expect(s.explanation).toContain('1816')
  })

  it('scores an answer that is not JSON as 0 and says so', async () => {
    const s = await score(jsonEqual(), answered('{name: Ada}', { json: { name: 'Ada' } }))
    expect(s).toMatchObject({ score: 0, passed: false, citations: [2] })
    expect(s.explanation).toBe('answer is not valid JSON: "{name: Ada}"')
  })

  it('takes an unwrapped expected value, JSON text, and a fixed one including null', async () => {
    expect((await score(jsonEqual(), answered('[1, 2]', [1, 2]))).passed).toBe(true)
    expect((await score(jsonEqual(), answered('{"a": [1]}', '{"a":[1]}'))).passed).toBe(true)
    expect((await score(jsonEqual(), answered('42', '42'))).passed).toBe(true)
    expect(await configError(() => jsonEqual().evaluate(answered('x', 'not json')))).toContain(
      'not JSON text',
    )
    expect((await score(jsonEqual({ expected: null }), answered('null', [1]))).passed).toBe(true)
  })
})

describe('matchesExpected', () => {
  it.each([
    ['exact', '42', ' 42 ', '43'],
    ['contains', { contains: 'Paris' }, 'It is Paris.', 'It is Lyon.'],
    ['regex', { regex: '^\\d+$' }, '123', '12a'],
    ['json', { json: { a: 1, b: 2 } }, '{"b":2,"a":1}', '{"a":1}'],
    ['plain number', 42, 'so it is 42', '41'],
    ['number with tolerance', { number: 3.14, tolerance: 0.01 }, '3.141', '3.16'],
    ['jsonSchema', { jsonSchema: { type: 'array', items: { type: 'integer' } } }, '[1,2]', '[1.5]'],
  ] as const)('dispatches a %s expectation', async (_kind, expected, good, bad) => {
    expect((await score(matchesExpected(), answered(good, expected))).passed).toBe(true)
    expect((await score(matchesExpected(), answered(bad, expected))).passed).toBe(false)
  })

  it('has a default id, and fails a missing answer', async () => {
    expect(matchesExpected().id).toBe('matches-expected')
    expect((await score(matchesExpected(), noAnswer({ contains: 'x' }))).explanation).toBe('no final answer')
  })

  it('rejects a task with no expected value or one of unknown shape', async () => {
    expect(await configError(() => matchesExpected().evaluate(answered('42')))).toContain('no expected value')
    expect(
      await configError(() => matchesExpected().evaluate(answered('42', { startsWith: '4' }))),
    ).toContain('unknown shape')
  })
})

describe('extractNumber', () => {
  it.each([
    ['42', 42],
    [' -3.5e2 ', -350],
    ['The total is 1,234.5 dollars.', 1234.5],
    ['first 3 then 7', 7],
    ['values 1,2', 2],
    ['.5 of it', 0.5],
  ])('reads %j as %d', (answer, value) => {
    expect(extractNumber(answer)?.value).toBe(value)
  })

  it('finds nothing in an answer without a number', () => {
    expect(extractNumber('no idea')).toBeUndefined()
  })
})

describe('numericMatch', () => {
  it('compares exactly by default, forgiving binary float error', async () => {
    expect(
      (await score(numericMatch({ expected: 0.3 }), answered('0.1 + 0.2 = 0.30000000000000004'))).passed,
    ).toBe(true)
    const miss = await score(numericMatch({ expected: 10 }), answered('about 10.5'))
    expect(miss).toMatchObject({ passed: false, score: 0, citations: [2] })
    expect(miss.explanation).toBe('expected 10 (±0), got 10.5 (off by 0.5)')
  })

  it('applies an absolute or a relative tolerance (either passes)', async () => {
    const abs = numericMatch({ expected: 100, tolerance: 2 })
    expect((await score(abs, answered('102'))).passed).toBe(true)
    expect((await score(abs, answered('102.5'))).passed).toBe(false)
    const rel = numericMatch({ expected: 200, relativeTolerance: 0.01 })
    expect((await score(rel, answered('201.9'))).explanation).toBe('answer 201.9 is within ±0 or ±1% of 200')
    expect((await score(rel, answered('202.1'))).passed).toBe(false)
  })

  it('reads the expected number and tolerance from the task; options override the tolerance', async () => {
    const task = { number: 9.8, tolerance: 0.05 }
    expect((await score(numericMatch(), answered('g = 9.81 m/s²', task))).passed).toBe(true)
    expect((await score(numericMatch({ tolerance: 0 }), answered('9.81', task))).passed).toBe(false)
    expect((await score(numericMatch(), answered('7', '7'))).passed).toBe(true)
  })

  it('fails an answer with no number, and a missing answer', async () => {
    expect((await score(numericMatch({ expected: 1 }), answered('none'))).explanation).toBe(
      'no number in the answer "none"',
    )
    expect((await score(numericMatch(), noAnswer(5))).explanation).toBe('no final answer')
  })

  it('rejects a negative tolerance at configuration and a non-numeric task expectation at evaluation', async () => {
    expect(await configError(() => numericMatch({ tolerance: -1 }))).toContain(
      'tolerance must be a number ≥ 0',
    )
    expect(await configError(() => numericMatch().evaluate(answered('4', 'four')))).toContain(
      'does not expect a number',
    )
  })
})

describe('jsonSchemaValid', () => {
  const schema = {
    type: 'object',
    required: ['name', 'age'],
    properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  }

  it('passes JSON that fits the schema and names every violation otherwise', async () => {
    const evaluator = jsonSchemaValid({ schema })
    expect((await score(evaluator, answered('{"name":"Ada","age":36,"extra":true}'))).passed).toBe(true)
    const bad = await score(evaluator, answered('{"age":-1}'))
    expect(bad).toMatchObject({ passed: false, citations: [2] })
    expect(bad.explanation).toBe(
      "answer does not fit the schema: (root) must have required property 'name'; /age must be >= 0",
    )
  })

  it('fails an answer that is not JSON', async () => {
    expect((await score(jsonSchemaValid({ schema }), answered('Ada, 36'))).explanation).toBe(
      'answer is not valid JSON: "Ada, 36"',
    )
  })

  it('takes the schema from the task, and rejects an invalid schema as configuration', async () => {
    expect((await score(jsonSchemaValid(), answered('"x"', { jsonSchema: { type: 'string' } }))).passed).toBe(
      true,
    )
    expect(await configError(() => jsonSchemaValid({ schema: { type: 'nonsense' } }))).toContain(
      'invalid JSON Schema',
    )
    expect(await configError(() => jsonSchemaValid().evaluate(answered('"x"', 'x')))).toContain(
      'cannot use the exact expectation',
    )
  })
})

describe('predicate', () => {
  it('scores a boolean verdict and cites the final answer', async () => {
    const even = predicate({ id: 'even', test: (answer) => Number(answer) % 2 === 0 })
    expect(await score(even, answered('4'))).toMatchObject({ passed: true, score: 1, citations: [2] })
    expect(await score(even, answered('5'))).toMatchObject({
      passed: false,
      score: 0,
      explanation: 'predicate does not hold',
    })
  })

  it('passes the whole trial, and keeps a returned score and explanation', async () => {
    const usesTools = predicate({
      id: 'few-steps',
      test: async (_answer, view) => {
        await Promise.resolve()
        return { passed: view.events.length <= 3, score: 0.25, explanation: `${view.events.length} events` }
      },
    })
    expect(await score(usesTools, answered('x'))).toMatchObject({
      passed: false,
      score: 0.25,
      explanation: '4 events',
    })
  })

  it('gets null for a missing answer, and rejects bad configuration and bad return values', async () => {
    const seen: (string | null)[] = []
    await score(predicate({ id: 'p', test: (a) => (seen.push(a), false) }), noAnswer(1))
    expect(seen).toEqual([null])
    expect(await configError(() => predicate({ id: 'p' } as never))).toContain(
      'give an id and a test function',
    )
    const bad = predicate({ id: 'p', test: () => 'yes' as never })
    expect(await configError(() => bad.evaluate(answered('x')))).toContain('returned "yes"')
  })
})
