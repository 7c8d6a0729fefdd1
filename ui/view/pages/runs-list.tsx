import { useMemo, useState } from 'preact/hooks'
import { runUrl, type RunEntry } from '../../../src/view/api.ts'
import { StateBadge } from '../components/badges.tsx'
import { Loading, Problem } from '../components/problem.tsx'
import { useRuns } from '../context.ts'
import { navigate } from '../navigation.ts'
import { withQuery } from '../router.ts'
import {
  choices,
  filterRuns,
  NO_FILTER,
  RUN_COLUMNS,
  sortRuns,
  type RunColumnId,
  type RunsFilter,
  type RunsSort,
} from '../runs-table.ts'
import { previousRun, seriesOf, validRunsInOrder } from '../series.ts'

/** Every run in the folder, newest first: filter, sort, open one, pick two to compare. */
export function RunsListPage() {
  const { runs, runsDir, error } = useRuns()
  return (
    <section data-testid="page-runs">
      <h1>Runs</h1>
      {runsDir ? <p class="muted small">{runsDir}</p> : null}
      {error ? <Problem text={error} /> : null}
      {runs ? <RunsTable runs={runs} /> : error ? null : <Loading what="the runs" />}
    </section>
  )
}

export function RunsTable({ runs }: { runs: readonly RunEntry[] }) {
  const [filter, setFilter] = useState<RunsFilter>(NO_FILTER)
  const [sort, setSort] = useState<RunsSort>({ column: 'started', descending: true })
  const [picked, setPicked] = useState<readonly string[]>([])
  const options = useMemo(() => choices(runs), [runs])
  const rows = useMemo(() => sortRuns(filterRuns(runs, filter), sort), [runs, filter, sort])
  const toggleSort = (column: RunColumnId) =>
    setSort((s) =>
      s.column === column ? { column, descending: !s.descending } : { column, descending: false },
    )
  const togglePick = (run: string) =>
    setPicked((p) => (p.includes(run) ? p.filter((r) => r !== run) : [...p.slice(-1), run]))
  return (
    <div>
      <div class="table-tools">
        <input
          class="filter"
          type="search"
          placeholder="Filter runs"
          aria-label="Filter runs"
          data-testid="runs-filter"
          value={filter.text}
          onInput={(e) => setFilter({ ...filter, text: e.currentTarget.value })}
        />
        <Select
          label="Status"
          testid="runs-status"
          value={filter.status}
          values={options.status}
          set={(status) => setFilter({ ...filter, status })}
        />
        <Select
          label="Benchmark"
          testid="runs-benchmark"
          value={filter.benchmark}
          values={options.benchmark}
          set={(benchmark) => setFilter({ ...filter, benchmark })}
        />
        <Select
          label="Target"
          testid="runs-target"
          value={filter.target}
          values={options.target}
          set={(target) => setFilter({ ...filter, target })}
        />
        <span class="count" data-testid="runs-count">{`${rows.length} of ${runs.length} runs`}</span>
        <CompareButton runs={runs} picked={picked} />
      </div>
      <div class="scroller">
        <table class="data runs" data-testid="runs-table">
          <thead>
            <tr>
              <th>
                <span class="sr-only">Pick</span>
              </th>
              {RUN_COLUMNS.map((c) => (
                <th
                  key={c.id}
                  class={c.numeric ? 'num' : undefined}
                  aria-sort={sort.column === c.id ? (sort.descending ? 'descending' : 'ascending') : 'none'}
                >
                  <button
                    type="button"
                    class="sort"
                    data-testid={`sort-${c.id}`}
                    onClick={() => toggleSort(c.id)}
                  >
                    {c.label}
                  </button>
                </th>
              ))}
              <th>Series</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <RunRow
                key={entry.run}
                entry={entry}
                runs={runs}
                picked={picked.includes(entry.run)}
                pick={togglePick}
              />
            ))}
            {rows.length === 0 ? (
              <tr class="empty">
                <td colSpan={RUN_COLUMNS.length + 2}>
                  {runs.length === 0 ? 'No runs in this folder yet.' : 'No run matches.'}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </div>
  )
}

function Select(props: {
  label: string
  testid: string
  value: string
  values: readonly string[]
  set: (v: string) => void
}) {
  return (
    <label class="select">
      {props.label}{' '}
      <select
        data-testid={props.testid}
        value={props.value}
        onChange={(e) => props.set(e.currentTarget.value)}
      >
        <option value="">all</option>
        {props.values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  )
}

/** The two picked runs, older as the baseline. */
function CompareButton({ runs, picked }: { runs: readonly RunEntry[]; picked: readonly string[] }) {
  const ordered = validRunsInOrder(runs).filter((r) => picked.includes(r.run))
  const [baseline, candidate] = ordered
  const ready = picked.length === 2 && baseline && candidate
  return (
    <button
      type="button"
      data-testid="compare-picked"
      disabled={!ready}
      title={ready ? undefined : 'Pick two valid runs to compare'}
      onClick={() => {
        if (ready) navigate(withQuery('/compare', { baseline: baseline.run, candidate: candidate.run }))
      }}
    >
      Compare picked
    </button>
  )
}

function RunRow(props: {
  entry: RunEntry
  runs: readonly RunEntry[]
  picked: boolean
  pick: (run: string) => void
}) {
  const { entry } = props
  const previous = entry.state === 'valid' ? previousRun(props.runs, entry) : null
  return (
    <tr class={`r state-${entry.state}`} data-testid="run-row" data-run={entry.run} data-state={entry.state}>
      <td>
        <input
          type="checkbox"
          aria-label={`Pick ${entry.run} to compare`}
          data-testid="run-pick"
          checked={props.picked}
          disabled={entry.state !== 'valid'}
          onChange={() => props.pick(entry.run)}
        />
      </td>
      {RUN_COLUMNS.map((c) => (
        <td key={c.id} class={c.numeric ? 'num' : undefined} data-col={c.id}>
          <Cell column={c.id} entry={entry} text={c.text(entry)} />
        </td>
      ))}
      <td class="series">
        {seriesOf(entry).map((s) => (
          <span key={`${s.benchmark}\n${s.target}`} class="series-links">
            <a
              href={withQuery('/trends', s)}
              data-testid="run-trend-link"
            >{`${s.benchmark} × ${s.target}`}</a>{' '}
            <a href={withQuery('/history', s)} data-testid="run-history-link">
              history
            </a>
          </span>
        ))}
        {previous ? (
          <a
            href={withQuery('/compare', { baseline: previous.run, candidate: entry.run })}
            data-testid="run-compare-previous"
          >
            vs previous
          </a>
        ) : null}
      </td>
    </tr>
  )
}

function Cell({ column, entry, text }: { column: RunColumnId; entry: RunEntry; text: string }) {
  if (column === 'status') {
    return (
      <span>
        <StateBadge entry={entry} />
        {entry.state === 'invalid' && entry.problems.length > 0 ? (
          <ul class="problems" data-testid="run-problems">
            {entry.problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        ) : null}
      </span>
    )
  }
  if (column === 'run')
    return (
      <a href={runUrl('', entry.run)} data-testid="run-link">
        {text}
      </a>
    )
  if (column === 'trials' && entry.state === 'live') {
    return <span data-testid="live-counts">{`${entry.passed}/${entry.trials} so far`}</span>
  }
  return <span>{text}</span>
}
