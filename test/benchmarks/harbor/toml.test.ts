import { describe, expect, it } from 'vitest'
import { parseToml, TomlSyntaxError } from '../../../src/benchmarks/harbor/toml.ts'

/** The error parseToml throws for `text`, which must be a TomlSyntaxError. */
function syntaxError(text: string): TomlSyntaxError {
  try {
    parseToml(text)
  } catch (e) {
    expect(e).toBeInstanceOf(TomlSyntaxError)
    return e as TomlSyntaxError
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`)
}

describe('parseToml: what task.toml files use', () => {
  it('reads a Harbor 1.0 task.toml', () => {
    const doc = parseToml(
      [
        '# comment',
        'version = "1.0"',
        '',
        '[metadata]',
        'author_name = "Jane Doe"  # trailing comment',
        'difficulty = "easy"',
        'tags = ["ssh", "linux"]',
        '',
        '[verifier]',
        'timeout_sec = 120.0',
        '',
        '[environment]',
        'cpus = 1',
        'allow_internet = true',
      ].join('\n'),
    )
    expect(doc).toEqual({
      version: '1.0',
      metadata: { author_name: 'Jane Doe', difficulty: 'easy', tags: ['ssh', 'linux'] },
      verifier: { timeout_sec: 120 },
      environment: { cpus: 1, allow_internet: true },
    })
  })

  it('reads dotted keys, quoted keys, dotted headers and CRLF line ends', () => {
    const doc = parseToml('a.b = 1\r\n"quoted key".c = 2\r\n[x.y]\r\nz = false\r\n[x]\r\nw = "w"\r\n')
    expect(doc).toEqual({ a: { b: 1 }, 'quoted key': { c: 2 }, x: { y: { z: false }, w: 'w' } })
  })

  it('reads strings: escapes, literal, multi-line and line-ending backslashes', () => {
    const doc = parseToml(
      [
        String.raw`basic = "tab\there \"q\" \\ \u00e9 \U0001F600"`,
        "literal = 'C:\\no\\escapes'",
        'multi = """',
        'line one',
        'line two"""',
        'folded = """one \\',
        '    two"""',
        "lit_multi = '''",
        "raw \\n kept'''",
        'quotes = """a""""',
        'two_quotes = """b"""""',
        "lit_quotes = '''c'''''",
      ].join('\n'),
    )
    expect(doc).toEqual({
      basic: 'tab\there "q" \\ é 😀',
      literal: 'C:\\no\\escapes',
      multi: 'line one\nline two',
      folded: 'one two',
      lit_multi: 'raw \\n kept',
      quotes: 'a"',
      two_quotes: 'b""',
      lit_quotes: "c''",
    })
  })

  it('reads integers, floats and booleans', () => {
    const doc = parseToml(
      'a = 42\nb = -17\nc = 1_000\nd = 0xff\ne = 0o17\nf = 0b101\ng = 3.5\nh = -1e3\ni = 6.02e+2\nj = inf\nk = -inf\nl = true',
    )
    expect(doc).toEqual({
      a: 42,
      b: -17,
      c: 1000,
      d: 255,
      e: 15,
      f: 5,
      g: 3.5,
      h: -1000,
      i: 602,
      j: Infinity,
      k: -Infinity,
      l: true,
    })
    expect(parseToml('n = nan').n).toBeNaN()
  })

  it('reads multi-line arrays with comments and a trailing comma, nested arrays and inline tables', () => {
    const doc = parseToml(
      [
        'tags = [',
        '  "a", # first',
        '  "b",',
        ']',
        'nested = [[1, 2], ["x"]]',
        'env = { API = "k", nested.deep = 1 }',
        'authors = [{ name = "A", email = "a@x" }, { name = "B" }]',
        'empty = {}',
      ].join('\n'),
    )
    expect(doc).toEqual({
      tags: ['a', 'b'],
      nested: [[1, 2], ['x']],
      env: { API: 'k', nested: { deep: 1 } },
      authors: [{ name: 'A', email: 'a@x' }, { name: 'B' }],
      empty: {},
    })
  })

  it('keeps a key named __proto__ as data, never as the prototype', () => {
    const doc = parseToml('__proto__ = "x"\n[constructor]\nv = 1')
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype)
    expect(Object.keys(doc)).toEqual(['__proto__', 'constructor'])
    expect(doc.constructor).toEqual({ v: 1 })
  })

  it('adds a sub-table under a table made by dotted keys', () => {
    expect(parseToml('[fruit]\napple.color = "red"\n[fruit.apple.texture]\nsmooth = true')).toEqual({
      fruit: { apple: { color: 'red', texture: { smooth: true } } },
    })
  })
})

describe('parseToml: what it refuses, and where', () => {
  it.each([
    ['[[products]]\nname = "x"', 'arrays of tables', 1, 1],
    ['created = 1979-05-27T07:32:00Z', 'dates and times are not supported', 1, 11],
    ['at = 07:32:00', 'dates and times are not supported', 1, 6],
    ['a = 1\na = 2', 'duplicate key a', 2, 1],
    ['[t]\nx = 1\n[t]\ny = 2', 'table t is defined twice', 3, 1],
    ['a.b = 1\n[a]\nc = 2', 'table a is defined twice', 2, 1],
    ['[a.b]\nx = 1\n[a]\nb.y = 2', 'cannot add keys to b: it is already defined', 4, 1],
    ['x = { a = 1 }\nx.b = 2', 'cannot add keys to x', 2, 1],
    ['x = { a = 1 }\n[x.y]', 'x is already defined as a value', 2, 1],
    ['name = "unterminated\nnext = 1', 'unterminated string', 1, 21],
    ['name = hello', 'invalid value "hello" (strings need quotes)', 1, 8],
    ['s = "\\q"', 'invalid escape "\\\\q"', 1, 6],
    ['s = "\\uD800"', 'not a Unicode scalar value', 1, 6],
    ['a = 1 b = 2', 'expected the end of the line, found "b"', 1, 7],
    ['big = 9007199254740993', 'integer out of range', 1, 7],
    ['lead = 012', 'invalid value "012"', 1, 8],
    ['t = { a = 1, }', 'a trailing comma is not allowed', 1, 14],
    ['t = { a = 1,\n b = 2 }', 'expected a key', 1, 13],
    ['arr = [1, 2', 'unterminated array', 1, 12],
    ['= 1', 'expected a key, found "="', 1, 1],
    ['key', 'expected "=" after the key', 1, 4],
    ['"""k""" = 1', 'a key cannot be a multi-line string', 1, 1],
    ['c = "a\u0001b"', 'control character U+0001', 1, 7],
    ['x = 1\r', 'a carriage return must be followed by a line feed', 1, 6],
  ])('%j → %s at %i:%i', (text, reason, line, col) => {
    const error = syntaxError(text)
    expect(error.reason).toContain(reason)
    expect([error.line, error.col]).toEqual([line, col])
    expect(error.message).toContain(`line ${line}, column ${col}`)
  })

  it('refuses values nested deeper than it recurses', () => {
    expect(syntaxError(`deep = ${'['.repeat(40)}${']'.repeat(40)}`).reason).toContain('nested deeper')
  })

  it('refuses a document larger than a configuration file', () => {
    expect(syntaxError(`# ${'x'.repeat(1024 * 1024)}`).reason).toContain('larger than')
  })
})
