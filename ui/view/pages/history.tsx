import {
  runUrl,
  taskUrl,
  type TaskHistoryResponse,
  type TaskHistoryRow,
  type TrendsResponse,
} from '../../../src/view/api.ts'
import { Loading, Problem } from '../components/problem.tsx'
import { useLiveData } from '../context.ts'
import { evidence, groupByKind, KIND_TEXT, outcomeOf } from '../history-groups.ts'
import { navigate } from '../navigation.ts'
import { withQuery } from '../router.ts'

/** Each task of a benchmark × target across its runs, grouped by how it behaved. */
export function HistoryPage({ benchmark, target }: { benchmark: string | null; target: string | null }) {
  const chosen = benchmark && target ? { benchmark, target } : null
  const loaded = useLiveData<TaskHistoryResponse>(
    `history\n${benchmark}\n${target}`,
    chosen ? (client) => client.history(chosen.benchmark, chosen.target) : null,
  )
  return (
    <section data-testid="page-history">
      <h1>Task history</h1>
      <SeriesPicker benchmark={benchmark} target={target} />
      {!chosen ? <p class="muted">Pick a benchmark × target to see its tasks across runs.</p> : null}
      {chosen && !loaded ? <Loading what="the history" /> : null}
      {loaded && !loaded.ok ? <Problem text={loaded.error} /> : null}
      {loaded?.ok ? <HistoryGrid history={loaded.data} /> : null}
    </section>
  )
}

/** The series there are (from the trends), as one select that moves the page to it. */
function SeriesPicker({ benchmark, target }: { benchmark: string | null; target: string | null }) {
  const loaded = useLiveData<TrendsResponse>('trends', (client) => client.trends())
  if (!loaded) return null
  if (!loaded.ok) return <Problem text={loaded.error} />
  const current = JSON.stringify([benchmark, target])
  const known = loaded.data.series.some((s) => JSON.stringify([s.benchmark, s.target]) === current)
  return (
    <label class="select">
      Series{' '}
      <select
        data-testid="history-series"
        value={known ? current : ''}
        onChange={(e) => {
          const [b, t] = JSON.parse(e.currentTarget.value) as [string, string]
          navigate(withQuery('/history', { benchmark: b, target: t }))
        }}
      >
        {known ? null : <option value="">pick one</option>}
        {loaded.data.series.map((s) => {
          const value = JSON.stringify([s.benchmark, s.target])
          return (
            <option key={value} value={value}>
              {`${s.benchmark} × ${s.target}`}
            </option>
          )
        })}
      </select>
    </label>
  )
}

export function HistoryGrid({ history }: { history: TaskHistoryResponse }) {
  const groups = groupByKind(history.tasks)
  return (
    <div data-testid="history" data-benchmark={history.benchmark} data-target={history.target}>
      <p class="muted small">
        {`${history.tasks.length} tasks over ${history.runs.length} runs, oldest first. `}
        <a href={withQuery('/trends', { benchmark: history.benchmark, target: history.target })}>Trend</a>
      </p>
      <ul class="legend">
        <li>
          <span class="cell c-pass" /> all trials passed
        </li>
        <li>
          <span class="cell c-split" /> some passed
        </li>
        <li>
          <span class="cell c-fail" /> none passed
        </li>
        <li>
          <span class="cell c-absent" /> not in the run
        </li>
      </ul>
      {groups.length === 0 ? <p class="muted">No task in these runs.</p> : null}
      {groups.map((group) => (
        <section key={group.kind} data-testid={`history-kind-${group.kind}`} class="history-kind">
          <h2>{`${KIND_TEXT[group.kind]} (${group.rows.length})`}</h2>
          <div class="grid-wrap">
            <table class="history-grid">
              <thead>
                <tr>
                  <th>Task</th>
                  {history.runs.map((run, i) => (
                    <th key={run} class="run-col">
                      <a href={runUrl('', run)} title={run}>
                        {String(i + 1)}
                      </a>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {group.rows.map((row) => (
                  <TaskRow key={row.taskKey} row={row} runs={history.runs} />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </div>
  )
}

function TaskRow({ row, runs }: { row: TaskHistoryRow; runs: readonly string[] }) {
  return (
    <tr data-testid="history-task" data-task={row.taskKey} data-kind={row.kind}>
      <th class="task" scope="row">
        <span>{row.taskKey}</span>
        {row.kind === 'flipped' && row.direction ? (
          <span class={`tag dir-${row.direction}`} data-testid="history-direction">
            {row.direction}
          </span>
        ) : null}
        {row.kind === 'flaky' ? <FlakyEvidence row={row} runs={runs} /> : null}
      </th>
      {row.cells.map((cell, i) => {
        const run = runs[i]
        const outcome = outcomeOf(cell)
        const title = cell
          ? `${run ?? ''}: ${cell.passed}/${cell.trials} passed`
          : `${run ?? ''}: not in this run`
        return (
          <td key={i} class="cell-slot" title={title} data-outcome={outcome}>
            {cell && run !== undefined ? (
              <a class={`cell c-${outcome}`} href={taskUrl('', run, row.taskKey)} aria-label={title} />
            ) : (
              <span class={`cell c-${outcome}`} />
            )}
          </td>
        )
      })}
    </tr>
  )
}

/** Where it passed and where it failed, so "flaky" can be checked rather than believed. */
function FlakyEvidence({ row, runs }: { row: TaskHistoryRow; runs: readonly string[] }) {
  const found = evidence(row, runs)
  const line = (label: string, list: string[]) =>
    list.length > 0 ? (
      <li>
        {`${label} (${list.length}): `}
        {list.map((run, i) => (
          <span key={run}>
            {i > 0 ? ', ' : ''}
            <a href={taskUrl('', run, row.taskKey)}>{run}</a>
          </span>
        ))}
      </li>
    ) : null
  return (
    <ul class="evidence small" data-testid="history-evidence">
      {line('passed in', found.pass)}
      {line('split in', found.split)}
      {line('failed in', found.fail)}
    </ul>
  )
}
