/*
 * Text that came from a run or a bundle (a label, a runner's or a task's name, an agent's answer inside an
 * explanation, an error) made inert in Markdown: report.md and the GitHub job summary are rendered, so a value must
 * not become HTML (an `<img>` that fetches when the page is opened), a link or an image, emphasis, a code span to
 * break out of, a heading or list item, a table cell boundary or a new line. Our own fixed text is not passed here.
 */

/** Line breaks and other control characters: a value stays on the line it was put on. */
const CONTROL = /\r\n|[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/** Inline Markdown: no HTML, entity, link, image, emphasis, strikethrough, code span, table pipe or line break. */
export function inlineMarkdownText(text: string): string {
  return (
    text
      .replace(CONTROL, ' ')
      .replace(/[\\`*~[\]|]/g, (c) => `\\${c}`)
      // `_` inside a word never emphasises, so ids like `my_task` stay as they are.
      .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
      // `\](` still reads as `](` to a naive scan; escaping the parenthesis too leaves no link syntax at all.
      .replace(/\\\]\(/g, '\\]\\(')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
  )
}

/**
 * A value that may start a line (a list item's text, a blockquote's): inline-escaped, and a leading `#`, `>`,
 * `+`, `-`, `=` or `1.` cannot open a heading, a quote, a list or a setext underline.
 */
export function inertText(text: string): string {
  return inlineMarkdownText(text)
    .replace(/^(\s*)([#>+=-])/, '$1\\$2')
    .replace(/^(\s*\d+)([.)])(?=\s|$)/, '$1\\$2')
}

/**
 * A value shown as code (a `-t` pattern, a label name) when it is plain; otherwise escaped as text. Backslashes do
 * not escape inside a code span and entities show as typed, so a value with markup or a backtick is not put there.
 */
export function markdownCode(text: string): string {
  return /^[\w.@/:=+-]+$/.test(text) ? `\`${text}\`` : inertText(text)
}
