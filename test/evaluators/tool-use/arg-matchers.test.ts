import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../../src/core/index.ts'
import { argsMatch, type ArgMatcher } from '../../../src/evaluators/tool-use/index.ts'
import { validateArgMatchers } from '../../../src/evaluators/tool-use/arg-matchers.ts'

describe('argsMatch', () => {
  it("'exact' (the default) is canonical JSON equality: key order free, nothing else", () => {
    expect(argsMatch('exact', { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true)
    expect(argsMatch(undefined, { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true)
    expect(argsMatch('exact', { a: 1, b: [2, 1] }, { a: 1, b: [1, 2] })).toBe(false)
    expect(argsMatch('exact', { a: 1, extra: 0 }, { a: 1 })).toBe(false)
    expect(argsMatch('exact', '1', 1)).toBe(false)
  })

  it('no reference arguments accept any, except with a custom function', () => {
    expect(argsMatch('exact', { anything: true }, undefined)).toBe(true)
    expect(argsMatch({ tolerance: 0 }, 'x', undefined)).toBe(true)
    expect(argsMatch(() => false, 'x', undefined)).toBe(false)
  })

  it("'subset': given keys must match recursively; extra keys are free; arrays keep length and order", () => {
    const actual = { q: 'x', filter: { lang: 'en', year: 2024, tags: [{ id: 1, n: 'a' }] } }
    expect(argsMatch('subset', actual, {})).toBe(true)
    expect(argsMatch('subset', actual, { filter: { lang: 'en' } })).toBe(true)
    expect(argsMatch('subset', actual, { filter: { tags: [{ id: 1 }] } })).toBe(true)
    expect(argsMatch('subset', actual, { filter: { lang: 'fr' } })).toBe(false)
    expect(argsMatch('subset', actual, { filter: { lang: 'en', month: 1 } })).toBe(false)
    expect(argsMatch('subset', actual, { filter: { tags: [] } })).toBe(false)
    expect(argsMatch('subset', actual, { q: { nested: 'x' } })).toBe(false)
    expect(argsMatch('subset', { a: null }, { a: null })).toBe(true)
    expect(argsMatch('subset', {}, { a: null })).toBe(false)
  })

  it('tolerance: absolute, for every number, with the same shape required', () => {
    const m: ArgMatcher = { tolerance: 0.5 }
    expect(argsMatch(m, { x: 1.4, list: [10, 20.5] }, { x: 1, list: [10, 20] })).toBe(true)
    expect(argsMatch(m, { x: 1.6 }, { x: 1 })).toBe(false)
    expect(argsMatch(m, { x: 1, y: 2 }, { x: 1 })).toBe(false)
    expect(argsMatch(m, [1, 2], [1])).toBe(false)
    expect(argsMatch(m, { x: '1' }, { x: 1 })).toBe(false)
    expect(argsMatch(m, { s: 'a' }, { s: 'b' })).toBe(false)
    // Float noise is not a difference, even at tolerance 0.
    expect(argsMatch({ tolerance: 0 }, 0.1 + 0.2, 0.3)).toBe(true)
    expect(argsMatch({ tolerance: 0 }, 0.31, 0.3)).toBe(false)
  })

  it('a custom function gets (actual, expected)', () => {
    const calls: unknown[] = []
    const m: ArgMatcher = (actual, expected) => {
      calls.push([actual, expected])
      return true
    }
    expect(argsMatch(m, { a: 1 }, { b: 2 })).toBe(true)
    expect(calls).toEqual([[{ a: 1 }, { b: 2 }]])
  })
})

describe('validateArgMatchers', () => {
  const codeOf = (matchers: unknown) => {
    try {
      validateArgMatchers('here', matchers)
      return 'ok'
    } catch (e) {
      return isAgentEvalOpsError(e) ? `${e.code}: ${e.message}` : String(e)
    }
  }

  it('accepts the four kinds of matcher', () => {
    expect(codeOf(undefined)).toBe('ok')
    expect(codeOf({ a: 'exact', b: 'subset', c: { tolerance: 0 }, d: () => true })).toBe('ok')
  })

  it('rejects anything else as CONFIG_INVALID, naming the tool', () => {
    expect(codeOf({ search: { tolerance: -1 } })).toMatch(
      /^CONFIG_INVALID: here: the tolerance for tool "search" must be a number >= 0, got -1 /,
    )
    expect(codeOf({ search: { tolerance: '0.1' } })).toMatch(
      /^CONFIG_INVALID: here: the tolerance for tool "search"/,
    )
    expect(codeOf({ search: 'fuzzy' })).toMatch(
      /^CONFIG_INVALID: here: unknown argument matcher for tool "search": "fuzzy"/,
    )
    expect(codeOf({ search: 42 })).toMatch(
      /^CONFIG_INVALID: here: unknown argument matcher for tool "search": 42/,
    )
    expect(codeOf(['exact'])).toMatch(/^CONFIG_INVALID: here: args must be an object/)
  })
})
