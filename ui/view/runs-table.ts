import type { RunEntry } from '../../src/view/api.ts'
import { labelsText, rateWithInterval, shortSha, usd, when } from './format.ts'

/** The runs list's columns: the text a cell shows (and the text filter reads), and the value it sorts by. */
export interface RunColumn {
  id: RunColumnId
  label: string
  numeric: boolean
  text: (entry: RunEntry) => string
  value: (entry: RunEntry) => string | number | null
}

export type RunColumnId =
  'status' | 'run' | 'targets' | 'benchmarks' | 'rate' | 'trials' | 'cost' | 'sha' | 'labels' | 'started'

/** The pass rate a row shows: the pooled headline, else trials passed so far (a live run), else a dash. */
export function rowRate(entry: RunEntry): number | null {
  if (entry.headline) return entry.headline.rate
  if (entry.groups.length === 0 && entry.trials > 0) return entry.passed / entry.trials
  return null
}

export function rateText(entry: RunEntry): string {
  if (entry.headline) return rateWithInterval(entry.headline.rate, entry.headline.ci)
  if (entry.groups.length > 0)
    return entry.groups.map((g) => `${g.target}: ${rateWithInterval(g.rate, g.ci)}`).join('; ')
  const rate = rowRate(entry)
  return rate === null ? '—' : `${rateWithInterval(rate, null)} so far`
}

export const RUN_COLUMNS: readonly RunColumn[] = [
  {
    id: 'status',
    label: 'Status',
    numeric: false,
    text: (e) =>
      e.state === 'valid' ? e.status : `${e.state === 'live' ? 'running' : 'invalid'} ${e.status}`,
    value: (e) => `${e.state} ${e.status}`,
  },
  { id: 'run', label: 'Run', numeric: false, text: (e) => e.runId || e.run, value: (e) => e.runId || e.run },
  {
    id: 'targets',
    label: 'Target',
    numeric: false,
    text: (e) => e.targets.join(', '),
    value: (e) => e.targets.join(', '),
  },
  {
    id: 'benchmarks',
    label: 'Benchmark',
    numeric: false,
    text: (e) => e.benchmarks.join(', '),
    value: (e) => e.benchmarks.join(', '),
  },
  { id: 'rate', label: 'Pass rate', numeric: true, text: rateText, value: rowRate },
  {
    id: 'trials',
    label: 'Trials',
    numeric: true,
    text: (e) => `${e.passed}/${e.trials}`,
    value: (e) => e.trials,
  },
  { id: 'cost', label: 'Cost', numeric: true, text: (e) => usd(e.costUsd), value: (e) => e.costUsd },
  {
    id: 'sha',
    label: 'Git',
    numeric: false,
    text: (e) => shortSha(e.gitSha, e.gitDirty),
    value: (e) => e.gitSha,
  },
  {
    id: 'labels',
    label: 'Labels',
    numeric: false,
    text: (e) => labelsText(e.labels),
    value: (e) => labelsText(e.labels),
  },
  {
    id: 'started',
    label: 'Started',
    numeric: false,
    text: (e) => when(e.startedAt),
    value: (e) => e.startedAt,
  },
]

export interface RunsFilter {
  text: string
  status: string
  benchmark: string
  target: string
}

export const NO_FILTER: RunsFilter = { text: '', status: '', benchmark: '', target: '' }

export interface RunsSort {
  column: RunColumnId
  descending: boolean
}

/** The status a row is filtered by: running and invalid are statuses of their own. */
export function statusOf(entry: RunEntry): string {
  return entry.state === 'valid' ? entry.status : entry.state === 'live' ? 'running' : 'invalid'
}

/** Rows whose cells (and problems) contain the text, case-insensitively, and match every select that is set. */
export function filterRuns(runs: readonly RunEntry[], filter: RunsFilter): RunEntry[] {
  const needle = filter.text.trim().toLowerCase()
  return runs.filter((entry) => {
    if (filter.status && statusOf(entry) !== filter.status) return false
    if (filter.benchmark && !entry.benchmarks.includes(filter.benchmark)) return false
    if (filter.target && !entry.targets.includes(filter.target)) return false
    if (!needle) return true
    const haystack = [...RUN_COLUMNS.map((c) => c.text(entry)), entry.run, ...entry.problems].join('\n')
    return haystack.toLowerCase().includes(needle)
  })
}

/** Sorted by one column; missing values last either way, ties by run name so the order is stable. */
export function sortRuns(runs: readonly RunEntry[], sort: RunsSort): RunEntry[] {
  const column = RUN_COLUMNS.find((c) => c.id === sort.column) ?? RUN_COLUMNS[0]!
  const sign = sort.descending ? -1 : 1
  return runs.slice().sort((a, b) => {
    const x = column.value(a)
    const y = column.value(b)
    if (x === null || y === null) return x === y ? a.run.localeCompare(b.run) : x === null ? 1 : -1
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))
    return order !== 0 ? sign * order : a.run.localeCompare(b.run)
  })
}

/** The values a select offers: each status, benchmark or target some run has, sorted. */
export function choices(runs: readonly RunEntry[]): {
  status: string[]
  benchmark: string[]
  target: string[]
} {
  const sorted = (values: Iterable<string>) => [...new Set(values)].sort()
  return {
    status: sorted(runs.map(statusOf)),
    benchmark: sorted(runs.flatMap((r) => r.benchmarks)),
    target: sorted(runs.flatMap((r) => r.targets)),
  }
}
