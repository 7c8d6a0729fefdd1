import type { CellValue, TableRow } from '../../src/reports/html/page-data.ts'

/*
 * What a data table shows, as index arrays: the rows in sort order, those the filter keeps, and the window of them
 * drawn. Pure functions, so a table of ten thousand rows is sorted and filtered without touching the DOM.
 */

/** The height of a row as the stylesheet fixes it: rows are placed by it before any is measured. */
export const ROW_HEIGHT = 28
/** Rows drawn beyond each edge of the view, so a short scroll shows drawn rows. */
export const OVERSCAN = 10

export type SortDirection = 1 | -1

export interface RowWindow {
  first: number
  last: number
}

/** Nulls last whichever way; otherwise by value. */
export function compareCells(a: CellValue, b: CellValue, dir: SortDirection): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return (a < b ? -1 : a > b ? 1 : 0) * dir
}

/** The rows' indices by column `column`, ties in table order; the table order itself without a column. */
export function sortedOrder(rows: readonly TableRow[], column: number | null, dir: SortDirection): number[] {
  const order = rows.map((_, i) => i)
  if (column === null) return order
  const values = rows.map((row) => row.v[column] ?? null)
  return order.sort((a, b) => compareCells(values[a]!, values[b]!, dir) || a - b)
}

/** What the filter searches in a row: its display texts, lower-cased. */
export function rowHaystack(row: TableRow): string {
  return row.t.join('\u0001').toLowerCase()
}

/** The indices of `order` whose haystack holds `query` (already trimmed and lower-cased); all of them for ''. */
export function filterOrder(order: number[], haystack: () => readonly string[], query: string): number[] {
  if (query === '') return order
  const texts = haystack()
  return order.filter((i) => texts[i]!.includes(query))
}

/** The rows to draw for a view `view` px tall scrolled `top` px into the rows, with OVERSCAN rows either side. */
export function rowWindow(top: number, view: number, rowHeight: number, count: number): RowWindow {
  return {
    first: Math.max(0, Math.floor(top / rowHeight) - OVERSCAN),
    last: Math.min(count, Math.ceil((top + view) / rowHeight) + OVERSCAN),
  }
}

/** "3 tasks", or "2 of 6 tasks" when the filter hides some. */
export function countText(shown: number, total: number, noun: string, nouns: string): string {
  return `${shown === total ? '' : `${shown} of `}${total} ${total === 1 ? noun : nouns}`
}
