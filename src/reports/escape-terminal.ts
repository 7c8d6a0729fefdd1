/*
 * Text that came from a run or a bundle, made safe for a terminal or a CI log: a newline in a task id must not
 * start a line that looks like ours, and an ANSI escape sequence (colours, cursor moves, a retitled window) must not
 * reach the terminal. Control characters and the Unicode line and direction overrides are shown as escapes.
 */

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** `a\nb` → `a\\nb`, ESC → `\\x1b`, U+202E → `\\u202e`: one visible line, with nothing the terminal acts on. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c]
    if (named) return named
    const code = c.charCodeAt(0)
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
