import { inlineMarkdownText } from './escape-markdown.ts'

export { inertText } from './escape-markdown.ts'

/** One table cell's text, inert (see escape-markdown.ts); a cell is inline, so no line-start escapes. */
export function escapeCell(text: string): string {
  return inlineMarkdownText(text).trim()
}

export type Align = 'left' | 'right'

/** A GitHub-flavoured markdown table; every cell is escaped here, so callers pass plain text. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly Align[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`
  const rule = `|${headers.map((_, i) => (align?.[i] === 'right' ? ' ---: ' : ' --- ')).join('|')}|`
  return [line(headers), rule, ...rows.map(line)].join('\n')
}
