import type { CellValue, Column, TableData } from './page-data.ts'

/** One column: its header, and how a row gives its raw value (sorted by) and its text (shown, filtered on). */
export interface ColumnSpec<R> {
  id: string
  label: string
  numeric?: boolean
  opensTask?: boolean
  value: (row: R) => CellValue
  text: (row: R) => string
}

export interface TableSpec<R> {
  id: string
  noun: string
  columns: readonly ColumnSpec<R>[]
  key: (row: R) => string
  task?: (row: R) => number | undefined
}

/** Records of any shape as a page table: per row, the raw values and the texts side by side. */
export function tableData<R>(spec: TableSpec<R>, rows: readonly R[]): TableData {
  const columns: Column[] = spec.columns.map((c) => ({
    id: c.id,
    label: c.label,
    numeric: c.numeric ?? false,
    ...(c.opensTask ? { opensTask: true } : {}),
  }))
  return {
    id: spec.id,
    noun: spec.noun,
    nouns: spec.noun.endsWith('y') ? `${spec.noun.slice(0, -1)}ies` : `${spec.noun}s`,
    columns,
    rows: rows.map((row) => {
      const task = spec.task?.(row)
      return {
        key: spec.key(row),
        v: spec.columns.map((c) => finiteOrNull(c.value(row))),
        t: spec.columns.map((c) => c.text(row)),
        ...(task === undefined ? {} : { task }),
      }
    }),
  }
}

/** NaN and ±Infinity have no JSON form; as sort keys they mean "no value". */
function finiteOrNull(value: CellValue): CellValue {
  return typeof value === 'number' && !Number.isFinite(value) ? null : value
}

/** A numeric column whose text is `format(value)`. */
export function numberColumn<R>(
  id: string,
  label: string,
  value: (row: R) => number | null,
  format: (value: number | null) => string,
): ColumnSpec<R> {
  return { id, label, numeric: true, value, text: (row) => format(value(row)) }
}

export function textColumn<R>(id: string, label: string, text: (row: R) => string): ColumnSpec<R> {
  return { id, label, value: text, text }
}
