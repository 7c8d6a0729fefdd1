/**
 * A strict parser for the part of TOML 1.0 that Harbor's task.toml files use: comments, `[table]` headers, bare,
 * quoted and dotted keys, strings (basic, literal and their multi-line forms), integers, floats, booleans, arrays
 * (which may span lines) and inline tables (`env = { A = "1" }`, `authors = [{ name = "…" }]`).
 *
 * Anything else is refused with a TomlSyntaxError that says where and what: arrays of tables (`[[x]]`), dates and
 * times, integers beyond ±2^53, duplicate keys and tables defined twice. Refusing is deliberate: a task file we do
 * not fully understand must not be half-read.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable
export interface TomlTable {
  [key: string]: TomlValue
}

/** A task.toml larger than this is not a configuration file. */
export const MAX_TOML_CHARS = 1024 * 1024
/** Arrays and inline tables nested deeper than this are refused (the recursion stays bounded). */
const MAX_NESTING = 32

export class TomlSyntaxError extends Error {
  /** 1-based. */
  readonly line: number
  /** 1-based, in characters. */
  readonly col: number
  /** The message without its position. */
  readonly reason: string

  constructor(reason: string, line: number, col: number) {
    super(`${reason} (line ${line}, column ${col})`)
    this.name = 'TomlSyntaxError'
    this.reason = reason
    this.line = line
    this.col = col
  }
}

const BARE_KEY = /[A-Za-z0-9_-]/
const DEC_INT = /^[+-]?(?:0|[1-9](?:_?[0-9])*)$/
const HEX_INT = /^0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*$/
const OCT_INT = /^0o[0-7](?:_?[0-7])*$/
const BIN_INT = /^0b[01](?:_?[01])*$/
const FLOAT =
  /^[+-]?(?:0|[1-9](?:_?[0-9])*)(?:\.[0-9](?:_?[0-9])*(?:[eE][+-]?[0-9](?:_?[0-9])*)?|[eE][+-]?[0-9](?:_?[0-9])*)$/
const SPECIAL_FLOAT = /^[+-]?(?:inf|nan)$/
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/
/** Characters a number, boolean or date token is made of. */
const TOKEN_CHAR = /[A-Za-z0-9_+\-.:]/

/** Parses `text` as a TOML document. Throws TomlSyntaxError. */
export function parseToml(text: string): TomlTable {
  if (text.length > MAX_TOML_CHARS)
    throw new TomlSyntaxError(`the document is larger than ${MAX_TOML_CHARS} characters`, 1, 1)
  return new Parser(text).document()
}

class Parser {
  private pos = 0
  private readonly root: TomlTable = {}
  /** Tables defined by a `[header]`. */
  private readonly headed = new WeakSet<TomlTable>()
  /** Tables created by dotted keys (`a.b = 1`): only more dotted keys of the same section may add to them. */
  private readonly dotted = new WeakSet<TomlTable>()
  /** Inline tables and every table inside a value: complete as written. */
  private readonly frozen = new WeakSet<TomlTable>()

  constructor(private readonly src: string) {
    if (src.startsWith('\uFEFF')) this.pos = 1
  }

  document(): TomlTable {
    let current = this.root
    // Every pass consumes at least one character or throws, so the loop ends.
    while (this.pos < this.src.length) {
      this.skipBlank()
      if (this.pos >= this.src.length) break
      const c = this.src[this.pos]
      if (c === '#' || c === '\n' || c === '\r') {
        this.endOfLine()
      } else if (c === '[') {
        current = this.header()
        this.endOfLine()
      } else {
        this.keyValue(current, false)
        this.endOfLine()
      }
    }
    return this.root
  }

  // ---- structure -------------------------------------------------------------------------------------------

  private header(): TomlTable {
    const at = this.pos
    this.pos++ // [
    if (this.src[this.pos] === '[') this.fail('arrays of tables ([[…]]) are not supported in task.toml', at)
    this.skipBlank()
    const keys = this.key()
    this.skipBlank()
    if (this.src[this.pos] !== ']') this.fail('expected "]" to close the table header')
    this.pos++
    let table = this.root
    keys.forEach((key, i) => {
      const last = i === keys.length - 1
      const existing = getOwn(table, key)
      if (existing === undefined) {
        const created: TomlTable = {}
        setOwn(table, key, created)
        table = created
      } else if (!isTable(existing) || this.frozen.has(existing)) {
        this.fail(`${quoteKeys(keys.slice(0, i + 1))} is already defined as a value`, at)
      } else if (last && (this.headed.has(existing) || this.dotted.has(existing))) {
        this.fail(`table ${quoteKeys(keys)} is defined twice`, at)
      } else {
        table = existing
      }
    })
    this.headed.add(table)
    return table
  }

  /** `key = value` into `table`. Inside an inline table (`inline`), the tables dotted keys create are frozen too. */
  private keyValue(table: TomlTable, inline: boolean, depth = 0): void {
    const at = this.pos
    const keys = this.key()
    this.skipBlank()
    if (this.src[this.pos] !== '=') this.fail('expected "=" after the key')
    this.pos++
    this.skipBlank()
    const value = this.value(depth)
    let target = table
    for (const [i, key] of keys.slice(0, -1).entries()) {
      const existing = getOwn(target, key)
      if (existing === undefined) {
        const created: TomlTable = {}
        this.dotted.add(created)
        if (inline) this.frozen.add(created)
        setOwn(target, key, created)
        target = created
      } else if (isTable(existing) && this.dotted.has(existing) && (inline || !this.frozen.has(existing))) {
        target = existing
      } else {
        this.fail(`cannot add keys to ${quoteKeys(keys.slice(0, i + 1))}: it is already defined`, at)
      }
    }
    const last = keys[keys.length - 1] as string
    if (Object.hasOwn(target, last)) this.fail(`duplicate key ${quoteKeys(keys)}`, at)
    setOwn(target, last, value)
  }

  /** A bare, quoted or dotted key, as its parts. */
  private key(): string[] {
    const parts = [this.simpleKey()]
    // Each pass consumes a "." and a key part, or stops.
    for (;;) {
      const save = this.pos
      this.skipBlank()
      if (this.src[this.pos] !== '.') {
        this.pos = save
        return parts
      }
      this.pos++
      this.skipBlank()
      parts.push(this.simpleKey())
    }
  }

  private simpleKey(): string {
    const c = this.src[this.pos]
    if (c === '"') {
      if (this.src.startsWith('"""', this.pos)) this.fail('a key cannot be a multi-line string')
      return this.basicString()
    }
    if (c === "'") {
      if (this.src.startsWith("'''", this.pos)) this.fail('a key cannot be a multi-line string')
      return this.literalString()
    }
    const start = this.pos
    while (this.pos < this.src.length && BARE_KEY.test(this.src[this.pos] as string)) this.pos++
    if (this.pos === start)
      this.fail(
        c === undefined ? 'expected a key, found the end of the file' : `expected a key, found ${show(c)}`,
      )
    return this.src.slice(start, this.pos)
  }

  // ---- values ----------------------------------------------------------------------------------------------

  private value(depth: number): TomlValue {
    if (depth > MAX_NESTING) this.fail(`values nested deeper than ${MAX_NESTING} levels are not supported`)
    const c = this.src[this.pos]
    if (c === undefined) this.fail('expected a value, found the end of the file')
    if (c === '"')
      return this.src.startsWith('"""', this.pos) ? this.multilineBasicString() : this.basicString()
    if (c === "'")
      return this.src.startsWith("'''", this.pos) ? this.multilineLiteralString() : this.literalString()
    if (c === '[') return this.array(depth)
    if (c === '{') return this.inlineTable(depth)
    return this.scalarToken()
  }

  private array(depth: number): TomlValue[] {
    this.pos++ // [
    const items: TomlValue[] = []
    // Each pass reads one value (consuming input) or ends the array.
    for (;;) {
      this.skipBlankLinesAndComments()
      if (this.src[this.pos] === ']') break
      items.push(this.value(depth + 1))
      this.skipBlankLinesAndComments()
      const c = this.src[this.pos]
      if (c === ',') {
        this.pos++
        continue
      }
      if (c === ']') break
      this.fail(c === undefined ? 'unterminated array' : `expected "," or "]" in the array, found ${show(c)}`)
    }
    this.pos++ // ]
    return items
  }

  private inlineTable(depth: number): TomlTable {
    this.pos++ // {
    const table: TomlTable = {}
    this.frozen.add(table)
    this.skipBlank()
    if (this.src[this.pos] === '}') {
      this.pos++
      return table
    }
    // Each pass reads one key/value (consuming input) or ends the table.
    for (;;) {
      this.skipBlank()
      this.keyValue(table, true, depth + 1)
      this.skipBlank()
      const c = this.src[this.pos]
      if (c === ',') {
        this.pos++
        this.skipBlank()
        if (this.src[this.pos] === '}') this.fail('a trailing comma is not allowed in an inline table')
        continue
      }
      if (c === '}') break
      if (c === '\n' || c === '\r') this.fail('an inline table must be on one line')
      this.fail(c === undefined ? 'unterminated inline table' : `expected "," or "}", found ${show(c)}`)
    }
    this.pos++ // }
    return table
  }

  /** true, false, an integer or a float. */
  private scalarToken(): TomlValue {
    const start = this.pos
    while (this.pos < this.src.length && TOKEN_CHAR.test(this.src[this.pos] as string)) this.pos++
    const token = this.src.slice(start, this.pos)
    if (token === '') this.fail(`expected a value, found ${show(this.src[start] as string)}`, start)
    if (token === 'true') return true
    if (token === 'false') return false
    if (DATE_LIKE.test(token)) this.fail('dates and times are not supported in task.toml', start)
    if (DEC_INT.test(token)) return this.integer(Number(token.replace(/_/g, '')), start)
    if (HEX_INT.test(token)) return this.integer(parseInt(token.slice(2).replace(/_/g, ''), 16), start)
    if (OCT_INT.test(token)) return this.integer(parseInt(token.slice(2).replace(/_/g, ''), 8), start)
    if (BIN_INT.test(token)) return this.integer(parseInt(token.slice(2).replace(/_/g, ''), 2), start)
    if (FLOAT.test(token)) return Number(token.replace(/_/g, ''))
    if (SPECIAL_FLOAT.test(token)) {
      const negative = token.startsWith('-')
      if (token.endsWith('nan')) return NaN
      return negative ? -Infinity : Infinity
    }
    this.fail(`invalid value ${show(token)} (strings need quotes)`, start)
  }

  private integer(n: number, at: number): number {
    if (!Number.isSafeInteger(n)) this.fail('integer out of range (beyond ±2^53)', at)
    return n
  }

  // ---- strings ---------------------------------------------------------------------------------------------

  private basicString(): string {
    this.pos++ // "
    let out = ''
    // Each pass consumes at least one character or ends the string.
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined || c === '\n' || c === '\r') this.fail('unterminated string')
      if (c === '"') {
        this.pos++
        return out
      }
      if (c === '\\') out += this.escape()
      else {
        this.checkChar(c)
        out += c
        this.pos++
      }
    }
  }

  private multilineBasicString(): string {
    this.pos += 3
    this.skipNewline()
    let out = ''
    // Each pass consumes at least one character or ends the string.
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined) this.fail('unterminated multi-line string')
      if (this.src.startsWith('"""', this.pos)) return out + this.closeMultiline('"')
      if (c === '\\') {
        const after = this.lineEndingBackslash()
        if (after !== null) this.pos = after
        else out += this.escape()
      } else if (c === '\r' || c === '\n') {
        out += '\n'
        this.skipNewline()
      } else {
        this.checkChar(c)
        out += c
        this.pos++
      }
    }
  }

  /**
   * Steps over a multi-line string's closing delimiter (three `quote`s at pos) and returns what of it belongs to
   * the string: up to two quotes right before the delimiter.
   */
  private closeMultiline(quote: '"' | "'"): string {
    const extra = this.src.startsWith(quote.repeat(5), this.pos)
      ? 2
      : this.src.startsWith(quote.repeat(4), this.pos)
        ? 1
        : 0
    this.pos += 3 + extra
    return quote.repeat(extra)
  }

  private literalString(): string {
    this.pos++ // '
    const start = this.pos
    // Each pass consumes one character or ends the string.
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined || c === '\n' || c === '\r') this.fail('unterminated string')
      if (c === "'") {
        const text = this.src.slice(start, this.pos)
        this.pos++
        return text
      }
      this.checkChar(c)
      this.pos++
    }
  }

  private multilineLiteralString(): string {
    this.pos += 3
    this.skipNewline()
    let out = ''
    // Each pass consumes at least one character or ends the string.
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined) this.fail('unterminated multi-line string')
      if (this.src.startsWith("'''", this.pos)) return out + this.closeMultiline("'")
      if (c === '\r' || c === '\n') {
        out += '\n'
        this.skipNewline()
      } else {
        this.checkChar(c)
        out += c
        this.pos++
      }
    }
  }

  /** At a backslash: the escaped character(s), consumed. */
  private escape(): string {
    const at = this.pos
    const c = this.src[this.pos + 1]
    this.pos += 2
    switch (c) {
      case 'b':
        return '\b'
      case 't':
        return '\t'
      case 'n':
        return '\n'
      case 'f':
        return '\f'
      case 'r':
        return '\r'
      case '"':
        return '"'
      case '\\':
        return '\\'
      case 'u':
      case 'U': {
        const length = c === 'u' ? 4 : 8
        const hex = this.src.slice(this.pos, this.pos + length)
        if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(hex))
          this.fail(`\\${c} needs ${length} hexadecimal digits`, at)
        const code = parseInt(hex, 16)
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
          this.fail(`\\${c}${hex} is not a Unicode scalar value`, at)
        this.pos += length
        return String.fromCodePoint(code)
      }
      default:
        return this.fail(`invalid escape ${show(`\\${c ?? ''}`)}`, at)
    }
  }

  /** At a backslash in a multi-line basic string: where the text resumes if it ends the line, else null. */
  private lineEndingBackslash(): number | null {
    let p = this.pos + 1
    while (this.src[p] === ' ' || this.src[p] === '\t') p++
    if (this.src[p] !== '\n' && !this.src.startsWith('\r\n', p)) return null
    // Skip all whitespace and newlines up to the next visible character.
    while (p < this.src.length) {
      const c = this.src[p]
      if (c === ' ' || c === '\t' || c === '\n') p++
      else if (this.src.startsWith('\r\n', p)) p += 2
      else break
    }
    return p
  }

  private checkChar(c: string): void {
    const code = c.charCodeAt(0)
    if ((code < 0x20 && c !== '\t') || code === 0x7f)
      this.fail(`control character U+${code.toString(16).padStart(4, '0').toUpperCase()} in a string`)
  }

  // ---- whitespace, comments, line ends ---------------------------------------------------------------------

  private skipBlank(): void {
    while (this.src[this.pos] === ' ' || this.src[this.pos] === '\t') this.pos++
  }

  private skipNewline(): void {
    if (this.src[this.pos] === '\n') this.pos++
    else if (this.src.startsWith('\r\n', this.pos)) this.pos += 2
    else if (this.src[this.pos] === '\r') this.fail('a carriage return must be followed by a line feed')
  }

  private skipComment(): void {
    if (this.src[this.pos] !== '#') return
    while (this.pos < this.src.length && this.src[this.pos] !== '\n' && this.src[this.pos] !== '\r') {
      const c = this.src[this.pos] as string
      if (c !== '\t' && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
        this.fail('control character in a comment')
      this.pos++
    }
  }

  /** Inside an array: whitespace, comments and newlines. */
  private skipBlankLinesAndComments(): void {
    // Each pass consumes input or stops.
    for (;;) {
      const before = this.pos
      this.skipBlank()
      this.skipComment()
      this.skipNewline()
      if (this.pos === before) return
    }
  }

  /** After a header or key/value: optional whitespace and comment, then a newline or the end of the file. */
  private endOfLine(): void {
    this.skipBlank()
    this.skipComment()
    const c = this.src[this.pos]
    if (c === undefined) return
    if (c !== '\n' && c !== '\r') this.fail(`expected the end of the line, found ${show(c)}`)
    this.skipNewline()
  }

  private fail(reason: string, at: number = this.pos): never {
    let line = 1
    let lineStart = 0
    for (let i = 0; i < at && i < this.src.length; i++) {
      if (this.src[i] === '\n') {
        line++
        lineStart = i + 1
      }
    }
    throw new TomlSyntaxError(reason, line, at - lineStart + 1)
  }
}

/** Own properties only: a key named `__proto__` or `constructor` is data, never the object's prototype. */
function getOwn(table: TomlTable, key: string): TomlValue | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}

function setOwn(table: TomlTable, key: string, value: TomlValue): void {
  Object.defineProperty(table, key, { value, enumerable: true, writable: true, configurable: true })
}

function isTable(value: TomlValue): value is TomlTable {
  return typeof value === 'object' && !Array.isArray(value)
}

function quoteKeys(keys: readonly string[]): string {
  return keys.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k))).join('.')
}

function show(text: string): string {
  return JSON.stringify(text.length > 20 ? `${text.slice(0, 20)}…` : text)
}
