/**
 * One table cell's text: a `|` would end the cell and a newline the whole table, so both are neutralised.
 */
export function escapeCell(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replace(/\|/g, '\\|')
    .trim()
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
