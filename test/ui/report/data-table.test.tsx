// @vitest-environment happy-dom
import { render } from 'preact'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { TableData } from '../../../src/reports/html/page-data.ts'
import { DataTable } from '../../../ui/components/data-table.tsx'
import { OVERSCAN, ROW_HEIGHT, rowWindow, sortedOrder } from '../../../ui/components/table-model.ts'
import { settle } from './report-fixture.ts'

afterEach(() => render(null, document.body))

/** `n` task rows: t-0000… with tokens 100 + i, and every third one's passRate null. */
function tasksTable(n: number): TableData {
  return {
    id: 'tasks',
    noun: 'task',
    nouns: 'tasks',
    columns: [
      { id: 'task', label: 'Task', numeric: false, opensTask: true },
      { id: 'tokens', label: 'Tokens', numeric: true },
      { id: 'passRate', label: 'Pass rate', numeric: true },
    ],
    rows: Array.from({ length: n }, (_, i) => {
      const task = `t-${String(i).padStart(4, '0')}`
      const rate = i % 3 === 0 ? null : (i % 7) / 7
      return {
        key: `toy/${task}`,
        v: [task, 100 + i, rate],
        t: [task, String(100 + i), rate === null ? '—' : `${(rate * 100).toFixed(1)}%`],
        task: i,
      }
    }),
  }
}

const $ = <E extends Element = HTMLElement>(selector: string) => document.querySelector<E>(selector)!
const keys = () =>
  [...document.querySelectorAll('[data-testid="row"]')].map((r) => r.getAttribute('data-key'))

describe('DataTable', () => {
  it('draws only a window of a 3,000-row table at first, with spacers standing in for the rest', () => {
    render(<DataTable spec={tasksTable(3000)} onOpenTask={() => {}} ready />, document.body)
    const expected = rowWindow(0, window.innerHeight, ROW_HEIGHT, 3000)
    expect(expected.first).toBe(0)
    expect(keys()).toHaveLength(expected.last)
    expect(keys().length).toBeLessThan(100)
    expect(keys()[0]).toBe('toy/t-0000')
    const table = $('[data-testid="table-tasks"]')
    expect(table.getAttribute('data-rows')).toBe('3000')
    expect(table.getAttribute('data-ready')).toBe('true')
    const below = $<HTMLTableCellElement>('tr.spacer td')
    expect(below.style.height).toBe(`${(3000 - expected.last) * ROW_HEIGHT}px`)
    expect($('[data-testid="count-tasks"]').textContent).toBe('3000 tasks')
  })

  it('draws the rows scrolled to, and no more', async () => {
    render(<DataTable spec={tasksTable(3000)} onOpenTask={() => {}} />, document.body)
    const scroller = $('[data-testid="scroll-tasks"]')
    scroller.scrollTop = 2000 * ROW_HEIGHT
    scroller.dispatchEvent(new Event('scroll'))
    await vi.waitFor(() => expect(keys()).toContain('toy/t-2000'))
    const drawn = keys()
    expect(drawn[0]).toBe(`toy/t-${String(2000 - OVERSCAN).padStart(4, '0')}`)
    expect(drawn.length).toBeLessThan(100)
    expect(drawn).not.toContain('toy/t-0000')
    const [above] = [...document.querySelectorAll<HTMLTableCellElement>('tr.spacer td')]
    expect(above!.style.height).toBe(`${(2000 - OVERSCAN) * ROW_HEIGHT}px`)
  })

  it('sorts by a column both ways, nulls last each way, and back to the top', async () => {
    const spec = tasksTable(3000)
    render(<DataTable spec={spec} onOpenTask={() => {}} />, document.body)
    const sort = $('[data-testid="sort-tokens"]')
    sort.click()
    await settle()
    expect(keys()[0]).toBe('toy/t-0000')
    expect(sort.parentElement!.getAttribute('aria-sort')).toBe('ascending')
    sort.click()
    await settle()
    expect(keys()[0]).toBe('toy/t-2999')
    expect(sort.parentElement!.getAttribute('aria-sort')).toBe('descending')
    const byRate = sortedOrder(spec.rows, 2, -1)
    expect(spec.rows[byRate.at(-1)!]!.v[2]).toBeNull()
    expect(spec.rows[byRate[0]!]!.v[2]).toBe(6 / 7)
    $('[data-testid="sort-passRate"]').click()
    await settle()
    expect(keys()[0]).toBe('toy/t-0007')
    expect($('[data-testid="sort-tokens"]').parentElement!.getAttribute('aria-sort')).toBe('none')
  })

  it('filters on the cells’ texts, counts what is left, and says when nothing is', async () => {
    render(<DataTable spec={tasksTable(3000)} onOpenTask={() => {}} />, document.body)
    const filter = $<HTMLInputElement>('[data-testid="filter-tasks"]')
    filter.value = ' T-123 '
    filter.dispatchEvent(new Event('input'))
    await settle()
    expect(keys()).toEqual(Array.from({ length: 10 }, (_, i) => `toy/t-123${i}`))
    expect($('[data-testid="count-tasks"]').textContent).toBe('10 of 3000 tasks')
    expect($('[data-testid="table-tasks"]').getAttribute('data-rows')).toBe('10')
    filter.value = 'no such task'
    filter.dispatchEvent(new Event('input'))
    await settle()
    expect(keys()).toEqual([])
    expect($('tr.empty').textContent).toBe('No task matches.')
  })

  it('opens the task of the row whose task cell is clicked', () => {
    const opened: number[] = []
    render(<DataTable spec={tasksTable(50)} onOpenTask={(t) => opened.push(t)} />, document.body)
    $('[data-testid="row"][data-key="toy/t-0007"] [data-testid="open-task"]').click()
    expect(opened).toEqual([7])
  })
})
