import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../../src/core/index.ts'
import {
  formatJsonPath,
  lookupJsonPath,
  parseJsonPath,
  tryParseJsonPath,
} from '../../../src/evaluators/state/json-path.ts'

describe('parseJsonPath', () => {
  it('parses the root, member names, quoted keys and indices', () => {
    expect(parseJsonPath('$')).toEqual([])
    expect(parseJsonPath('$.a.b[0].c')).toEqual([
      { kind: 'key', key: 'a' },
      { kind: 'key', key: 'b' },
      { kind: 'index', index: 0 },
      { kind: 'key', key: 'c' },
    ])
    expect(parseJsonPath("$['key with space']")).toEqual([{ kind: 'key', key: 'key with space' }])
    expect(parseJsonPath('$["dq"][12]')).toEqual([
      { kind: 'key', key: 'dq' },
      { kind: 'index', index: 12 },
    ])
    expect(parseJsonPath('$.dev-deps.$ref._x9.café')).toEqual([
      { kind: 'key', key: 'dev-deps' },
      { kind: 'key', key: '$ref' },
      { kind: 'key', key: '_x9' },
      { kind: 'key', key: 'café' },
    ])
  })

  it('reads escapes in quoted keys', () => {
    expect(parseJsonPath("$['it\\'s']")).toEqual([{ kind: 'key', key: "it's" }])
    expect(parseJsonPath('$["a\\"b\\\\c\\n\\u0041"]')).toEqual([{ kind: 'key', key: 'a"b\\c\nA' }])
    expect(parseJsonPath("$['a.b[0]']")).toEqual([{ kind: 'key', key: 'a.b[0]' }])
  })

  it.each([
    ['', 'must start with $'],
    ['a.b', 'must start with $'],
    ['$a', 'unexpected "a"'],
    ['$.', 'expected a member name'],
    ['$..a', 'recursive descent'],
    ['$.*', 'wildcards'],
    ['$[*]', 'wildcards'],
    ['$.items[-1]', 'negative indices'],
    ['$[1:2]', 'expected "]" after the index'],
    ['$[0', 'expected "]" after the index'],
    ["$['open", 'unterminated quoted key'],
    ["$['k'", 'expected "]" after the quoted key'],
    ["$['\\x']", 'unknown escape'],
    ['$[?(@.a)]', 'expected an index or a quoted key'],
    ['$.a b', 'unexpected " "'],
    ['$[99999999999999999999]', 'too large'],
  ])('rejects %j (%s) as CONFIG_INVALID', (source, reason) => {
    const parsed = tryParseJsonPath(source)
    expect(parsed.ok).toBe(false)
    expect(parsed.ok ? '' : parsed.reason).toContain(reason)
    let error: unknown
    try {
      parseJsonPath(source)
    } catch (e) {
      error = e
    }
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as Error).message).toContain('subset')
  })
})

describe('lookupJsonPath', () => {
  const doc = { a: { b: [{ c: 1 }, { c: null }] }, 'key with space': 'x', list: [] }

  it('finds values, including null and the whole document', () => {
    expect(lookupJsonPath(doc, parseJsonPath('$.a.b[0].c'))).toEqual({ found: true, value: 1 })
    expect(lookupJsonPath(doc, parseJsonPath('$.a.b[1].c'))).toEqual({ found: true, value: null })
    expect(lookupJsonPath(doc, parseJsonPath("$['key with space']"))).toEqual({ found: true, value: 'x' })
    expect(lookupJsonPath(doc, parseJsonPath('$'))).toEqual({ found: true, value: doc })
  })

  it('says where and why a lookup stops', () => {
    expect(lookupJsonPath(doc, parseJsonPath('$.a.x'))).toEqual({
      found: false,
      reason: '$.a has no key "x"',
    })
    expect(lookupJsonPath(doc, parseJsonPath('$.a.b[2]'))).toEqual({
      found: false,
      reason: '$.a.b has 2 elements, no index 2',
    })
    expect(lookupJsonPath(doc, parseJsonPath('$.a[0]'))).toEqual({
      found: false,
      reason: '$.a is an object, not an array',
    })
    expect(lookupJsonPath(doc, parseJsonPath('$.a.b[0].c.d'))).toEqual({
      found: false,
      reason: '$.a.b[0].c is a number, not an object',
    })
    expect(lookupJsonPath(doc, parseJsonPath('$.list.length'))).toEqual({
      found: false,
      reason: '$.list is an array of 0, not an object',
    })
  })

  it('never finds inherited properties', () => {
    expect(lookupJsonPath({}, parseJsonPath('$.constructor')).found).toBe(false)
    expect(lookupJsonPath({}, parseJsonPath("$['__proto__']")).found).toBe(false)
    const parsed = JSON.parse('{"__proto__": 5}') as { [key: string]: number }
    expect(lookupJsonPath(parsed, parseJsonPath("$['__proto__']"))).toEqual({ found: true, value: 5 })
  })
})

describe('formatJsonPath', () => {
  it('round-trips through parseJsonPath', () => {
    for (const source of ['$', '$.a.b[0].c', '$["key with space"][3]', '$["dev-deps"]']) {
      expect(formatJsonPath(parseJsonPath(source))).toBe(source)
    }
  })
})
