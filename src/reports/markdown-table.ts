/**
 * Text that came from a run (an agent's answer inside an explanation, an error, a task id) made inert in Markdown:
 * no HTML (a `<script>` or an `<img>` that fetches), no link or image (`![](https://…)` would call out when the
 * report is opened), no code span or fence to break out of, no `|` or newline to break a table.
 */
export function inertText(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replace(/[\\`[\]|]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
}

/** One table cell's text, inert (see inertText). */
export function escapeCell(text: string): string {
  return inertText(text).trim()
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
