import { describe, expect, it } from 'vitest'
import {
  EvaluatorScore,
  isAgentEvalOpsError,
  type Evaluator,
  type JsonValue,
  type TrialView,
} from '../../src/core/index.ts'
import { contains, exactMatch, jsonEqual, matchesExpected, regexMatch } from '../../src/evaluators/index.ts'
import { ev, trace, viewOf } from './trace-fixture.ts'

/** A trial whose answer is `answer` (step 2), against a task expecting `expected`. */
function answered(answer: string, expected?: JsonValue): TrialView {
  return viewOf(trace(ev.plan('think'), ev.model(), ev.answer(answer), ev.terminal('completed')), {
    task: expected === undefined ? {} : { expected },
  })
}

function noAnswer(expected: JsonValue): TrialView {
  return viewOf(trace(ev.model(), ev.terminal('limit_tokens')), { task: { expected } })
}

async function score(evaluator: Evaluator, view: TrialView) {
  const s = await evaluator.evaluate(view)
  // Whatever the evaluator returns must be a valid score once the engine stamps its id, kind and latency.
  EvaluatorScore.parse({ ...s, evaluatorId: evaluator.id, kind: evaluator.kind, latencyMs: 0 })
  return s
}

async function configError(run: () => unknown): Promise<string> {
  try {
    await run()
  } catch (e) {
    expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
    return (e as Error).message
  }
  return expect.unreachable('expected a CONFIG_INVALID error')
}

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
