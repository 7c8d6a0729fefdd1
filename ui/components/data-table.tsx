import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { TableData, TableRow, Column } from '../../src/reports/html/page-data.ts'
import {
  countText,
  filterOrder,
  ROW_HEIGHT,
  rowHaystack,
  rowWindow,
  sortedOrder,
  type RowWindow,
  type SortDirection,
} from './table-model.ts'
import { LinkButton } from './task-list.tsx'

export interface DataTableProps {
  spec: TableData
  onOpenTask: (task: number) => void
  /** Sets `data-ready` on the table: the tasks table's marks that the page is drawn. */
  ready?: boolean
}

interface Sort {
  column: number
  dir: SortDirection
}

/**
 * A sortable, filterable table that draws only the rows in view (fixed row height, a spacer row above and below),
 * so ten thousand rows cost what forty do. The first drawing reads no layout (it assumes the window's height), so
 * none is forced before the page's first paint; scrolling, sorting and filtering draw from the scroller's size.
 */
export function DataTable({ spec, onOpenTask, ready }: DataTableProps) {
  const { rows, columns } = spec
  const [sort, setSort] = useState<Sort | null>(null)
  const [query, setQuery] = useState('')
  const [view, setView] = useState<RowWindow & { measure: boolean }>(() => ({
    ...rowWindow(0, window.innerHeight, ROW_HEIGHT, rows.length),
    measure: false,
  }))
  const scroller = useRef<HTMLDivElement>(null)
  const thead = useRef<HTMLTableSectionElement>(null)
  const tbody = useRef<HTMLTableSectionElement>(null)
  const rowHeight = useRef(ROW_HEIGHT)
  const measured = useRef(false)
  const haystack = useRef<string[] | null>(null)
  const frame = useRef(0)

  const order = useMemo(() => sortedOrder(rows, sort?.column ?? null, sort?.dir ?? 1), [rows, sort])
  const shown = useMemo(
    () => filterOrder(order, () => (haystack.current ??= rows.map(rowHaystack)), query),
    [order, query, rows],
  )
  const count = shown.length

  /** The window for the scroller as it is now (`top` overrides its scroll position). */
  const fromLayout = (top?: number): RowWindow & { measure: boolean } => {
    const el = scroller.current!
    const scrolled = top ?? Math.max(0, el.scrollTop - (thead.current?.offsetHeight ?? 0))
    return {
      ...rowWindow(scrolled, el.clientHeight || window.innerHeight, rowHeight.current, count),
      measure: true,
    }
  }
  const redraw = (next: RowWindow & { measure: boolean }) =>
    setView((old) => (old.first === next.first && old.last === next.last ? old : next))

  const latest = useRef(() => redraw(fromLayout()))
  latest.current = () => redraw(fromLayout())
  const schedule = () => {
    if (frame.current !== 0) return
    frame.current = requestAnimationFrame(() => {
      frame.current = 0
      latest.current()
    })
  }
  useEffect(() => {
    window.addEventListener('resize', schedule)
    return () => {
      window.removeEventListener('resize', schedule)
      cancelAnimationFrame(frame.current)
    }
  }, [])

  // A new sort or filter starts at the top.
  const first = useRef(true)
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    scroller.current!.scrollTop = 0
    setView(fromLayout(0))
  }, [shown])

  // The stylesheet fixes the row height; a zoomed or restyled page may still differ, so measure it once.
  useLayoutEffect(() => {
    if (!view.measure || measured.current || view.last <= view.first) return
    measured.current = true
    const actual = tbody.current?.querySelector('tr.r')?.getBoundingClientRect().height ?? 0
    if (actual > 0 && Math.abs(actual - rowHeight.current) > 0.5) {
      rowHeight.current = actual
      setView(fromLayout())
    }
  }, [view])

  const sortBy = (column: number) =>
    setSort((old) => (old?.column === column ? { column, dir: old.dir === 1 ? -1 : 1 } : { column, dir: 1 }))

  const firstRow = Math.min(view.first, count)
  const lastRow = Math.min(view.last, count)
  const drawn: number[] = shown.slice(firstRow, lastRow)
  const height = rowHeight.current
  return (
    <div class="table-wrap">
      <div class="table-tools">
        <input
          type="search"
          class="filter"
          placeholder={`Filter ${spec.noun} rows`}
          aria-label={`Filter ${spec.noun} rows`}
          data-testid={`filter-${spec.id}`}
          onInput={(e) => setQuery(e.currentTarget.value.trim().toLowerCase())}
        />
        <span class="count" data-testid={`count-${spec.id}`}>
          {countText(count, rows.length, spec.noun, spec.nouns)}
        </span>
      </div>
      <div class="scroller" data-testid={`scroll-${spec.id}`} ref={scroller} onScroll={schedule}>
        <table
          class="data"
          data-testid={`table-${spec.id}`}
          data-rows={count}
          data-ready={ready ? 'true' : undefined}
        >
          <thead ref={thead}>
            <tr>
              {columns.map((column, i) => (
                <th
                  key={column.id}
                  scope="col"
                  class={column.numeric ? 'num' : undefined}
                  data-col={column.id}
                  aria-sort={sort?.column !== i ? 'none' : sort.dir === 1 ? 'ascending' : 'descending'}
                >
                  <button
                    type="button"
                    class="sort"
                    data-testid={`sort-${column.id}`}
                    title={`Sort by ${column.label}`}
                    onClick={() => sortBy(i)}
                  >
                    {column.label}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody ref={tbody}>
            {firstRow > 0 && <Spacer key="above" columns={columns.length} height={firstRow * height} />}
            {drawn.map((index) => (
              <Row key={index} row={rows[index]!} columns={columns} onOpenTask={onOpenTask} />
            ))}
            {lastRow < count && (
              <Spacer key="below" columns={columns.length} height={(count - lastRow) * height} />
            )}
            {count === 0 && (
              <tr class="empty">
                <td colSpan={columns.length}>{`No ${spec.noun} matches.`}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  )
}

function Spacer({ columns, height }: { columns: number; height: number }) {
  // A style property set through the DOM, not a style attribute: the page's CSP refuses those.
  return (
    <tr class="spacer" aria-hidden="true">
      <td colSpan={columns} style={{ height: `${height}px` }} />
    </tr>
  )
}

function Row({
  row,
  columns,
  onOpenTask,
}: {
  row: TableRow
  columns: Column[]
  onOpenTask: (task: number) => void
}) {
  return (
    <tr class="r" data-testid="row" data-key={row.key}>
      {columns.map((column, i) => {
        const text = row.t[i] ?? ''
        return (
          <td
            key={column.id}
            class={column.numeric ? 'num' : undefined}
            data-testid={`cell-${column.id}`}
            title={text}
          >
            {column.opensTask && row.task !== undefined ? (
              <LinkButton label={text} onClick={() => onOpenTask(row.task!)} />
            ) : (
              text
            )}
          </td>
        )
      })}
    </tr>
  )
}
