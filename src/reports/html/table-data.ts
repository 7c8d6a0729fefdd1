import { StreamedJsonArray } from '../../core/index.ts'
import type { CellValue, Column, TableData, TableRow } from './page-data.ts'

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
  /** The index into PageData.tasks of the task the row opens; `index` is the row's own. */
  task?: (row: R, index: number) => number | undefined
}

/** A table whose rows the report's JSON streams from their source (a long run's task table, read from a file). */
export type StreamedTable = Omit<TableData, 'rows'> & { rows: StreamedJsonArray<TableRow> }

/** Records of any shape as a page table: per row, the raw values and the texts side by side. */
export function tableData<R>(spec: TableSpec<R>, rows: readonly R[]): TableData {
  return { ...tableHead(spec), rows: rows.map((row, i) => tableRow(spec, row, i)) }
}

/** tableData of rows made as the table is written, each as `rows()` gives it. */
export function streamedTableData<R>(spec: TableSpec<R>, rows: () => Iterable<R>): StreamedTable {
  return {
    ...tableHead(spec),
    rows: new StreamedJsonArray(function* () {
      let i = 0
      for (const row of rows()) yield tableRow(spec, row, i++)
    }),
  }
}

function tableHead<R>(spec: TableSpec<R>): Omit<TableData, 'rows'> {
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
  }
}

function tableRow<R>(spec: TableSpec<R>, row: R, index: number): TableRow {
  const task = spec.task?.(row, index)
  return {
    key: spec.key(row),
    v: spec.columns.map((c) => finiteOrNull(c.value(row))),
    t: spec.columns.map((c) => c.text(row)),
    ...(task === undefined ? {} : { task }),
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
