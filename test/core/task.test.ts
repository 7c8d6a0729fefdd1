import { describe, expect, it } from 'vitest'
import { assertTaskSpecs, defineTask, isAgentEvalOpsError } from '../../src/core/index.ts'

describe('defineTask', () => {
  it('stamps a checksum that changes with the content', () => {
    const a = defineTask({ id: 't1', benchmark: 'b', prompt: 'What is 2+2?', expected: '4' })
    const b = defineTask({ id: 't1', benchmark: 'b', prompt: 'What is 2+3?', expected: '4' })
    expect(a.checksum).toMatch(/^[0-9a-f]{64}$/)
    expect(a.checksum).not.toBe(b.checksum)
    expect(defineTask({ id: 't1', benchmark: 'b', prompt: 'What is 2+2?', expected: '4' }).checksum).toBe(
      a.checksum,
    )
  })

  it('rejects a task without an id with a TASK_INVALID error', () => {
    try {
      defineTask({ id: '', benchmark: 'b', prompt: 'x' })
      expect.unreachable()
    } catch (e) {
      expect(isAgentEvalOpsError(e, 'TASK_INVALID')).toBe(true)
    }
  })
})

/** The lines of the TASK_INVALID error that `define` throws. */
function problemLines(define: () => unknown): string[] {
  try {
    define()
  } catch (e) {
    expect(isAgentEvalOpsError(e, 'TASK_INVALID'), String(e)).toBe(true)
    return (e as Error).message.split('\n')
  }
  return expect.unreachable('no error was thrown')
}

const base = { id: 'x', benchmark: 'b', prompt: 'p' }

describe('defineTask: a value that is not plain JSON gets one line naming the task, the field, and the fix', () => {
  // Built in JavaScript, or cast: what a user's code can hand us whatever the types say.
  const define = (extra: Record<string, unknown>) => () => defineTask({ ...base, ...extra })

  it.each([
    [
      'a Date',
      { input: { when: new Date(0) } },
      'task "x": input.when is a Date; tasks must be plain JSON — pass an ISO string (date.toISOString())',
    ],
    [
      'NaN',
      { expected: { score: Number.NaN } },
      'task "x": expected.score is NaN; tasks must be plain JSON — JSON has no such number: use null, or a string such as "NaN"',
    ],
    [
      'Infinity',
      { input: [1, Infinity] },
      'task "x": input[1] is Infinity; tasks must be plain JSON — JSON has no such number: use null, or a string such as "Infinity"',
    ],
    [
      'a function',
      { input: { check: () => true } },
      'task "x": input.check is a function; tasks must be plain JSON — tasks are data: move the behaviour into the runner or an evaluator, or pass a name or a string',
    ],
    [
      'a BigInt',
      { metadata: { seed: 12n } },
      'task "x": metadata.seed is a BigInt (12n); tasks must be plain JSON — pass a number (Number(x)) if it is below 2^53, or a string (x.toString())',
    ],
    [
      'a Map',
      { expected: new Map([['a', 1]]) },
      'task "x": expected is a Map; tasks must be plain JSON — pass a plain object (Object.fromEntries(map))',
    ],
    [
      'a class instance',
      { input: { at: new URL('https://example.test/') } },
      'task "x": input.at is an instance of URL; tasks must be plain JSON — pass a plain object with the fields that matter ({ ...value } or JSON.parse(JSON.stringify(value)))',
    ],
    [
      'undefined in a list',
      { input: { list: [1, undefined] } },
      'task "x": input.list[1] is undefined; tasks must be plain JSON — use null, or leave the item out',
    ],
  ])('%s', (_name, extra, line) => {
    expect(problemLines(define(extra))).toEqual([line])
  })

  it('lists every problem of a task at once, and never a zod union dump or a serializer TypeError', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = cycle
    const lines = problemLines(
      define({
        input: { when: new Date(0), n: Number.NaN, big: 1n, nested: { fn: Math.max } },
        expected: cycle,
      }),
    )
    expect(lines).toEqual([
      expect.stringMatching(/^task "x": input\.when is a Date;/),
      expect.stringMatching(/^task "x": input\.n is NaN;/),
      expect.stringMatching(/^task "x": input\.big is a BigInt \(1n\);/),
      expect.stringMatching(/^task "x": input\.nested\.fn is a function;/),
      expect.stringMatching(/^task "x": expected\.self is a reference back to an object that contains it/),
    ])
  })

  it('says what is missing or of the wrong type in plain words, one line each', () => {
    const lines = problemLines(define({ id: 'y', prompt: 3, tools: [{ description: 'no name' }] }))
    expect(lines).toEqual([
      'task "y": prompt: expected string, received number',
      'task "y": tools[0].name is missing (expected string, received undefined)',
    ])
  })

  it('takes a key left undefined as absent, as JSON does, and keeps the checksum it had', () => {
    // What plain JavaScript (or an optional chain) hands over; the types do not allow it.
    const unset = defineTask({
      ...base,
      expected: undefined,
      input: { a: 1, b: undefined },
      metadata: { category: undefined, source: undefined },
    } as unknown as Parameters<typeof defineTask>[0])
    const plain = defineTask({ ...base, input: { a: 1 } })
    expect(unset).toEqual(plain)
    expect(Object.keys(unset.input as object)).toEqual(['a'])
    expect(unset.checksum).toBe(plain.checksum)
  })
})

describe('assertTaskSpecs: the tasks a benchmark lists are checked once, all of them', () => {
  it('passes tasks built with defineTask', () => {
    expect(() => assertTaskSpecs('b', [defineTask(base), defineTask({ ...base, id: 'y' })])).not.toThrow()
  })

  it('names each hand-built task and field that JSON cannot carry', () => {
    const good = defineTask(base)
    const lines = problemLines(() =>
      assertTaskSpecs('b', [
        good,
        { ...good, id: 'late', input: { at: new Date(0) } },
        { ...good, id: 'big', expected: 10n },
        { ...good, id: 'nosum', checksum: undefined },
      ]),
    )
    expect(lines).toEqual([
      expect.stringMatching(/^task "late": input\.at is a Date;/),
      expect.stringMatching(/^task "big": expected is a BigInt \(10n\);/),
      'task "nosum": checksum is missing (expected string, received undefined)',
    ])
  })

  it('refuses a listTasks() result that is not a list', () => {
    expect(problemLines(() => assertTaskSpecs('b', { tasks: [] }))).toEqual([
      'benchmark "b": listTasks() returned an object, not a list of tasks. Return an array of tasks built with defineTask().',
    ])
  })
})
