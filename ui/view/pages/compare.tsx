import { taskUrl, type ComparedTask, type CompareResponse, type RunEntry } from '../../../src/view/api.ts'
import { VerdictText } from '../components/badges.tsx'
import { Loading, Problem } from '../components/problem.tsx'
import { useLiveData, useRuns } from '../context.ts'
import { percent, points, pointsInterval, pValue } from '../format.ts'
import { navigate } from '../navigation.ts'
import { withQuery } from '../router.ts'
import { lastTwo, previousRun, validRunsInOrder } from '../series.ts'

/**
 * Two runs, paired task by task as `agentevalops compare` does: the verdict, the change with its interval, then what
 * got worse before what got better. Without a query it compares the latest run with the one before it.
 */
export function ComparePage(props: { baseline: string | null; candidate: string | null }) {
  const { runs, error } = useRuns()
  const pair = runs ? defaultPair(runs, props.baseline, props.candidate) : null
  const loaded = useLiveData<CompareResponse>(
    `compare\n${pair?.baseline}\n${pair?.candidate}`,
    pair ? (client) => client.compare(pair.baseline, pair.candidate) : null,
  )
  return (
    <section data-testid="page-compare">
      <h1>Compare</h1>
      {error ? <Problem text={error} /> : null}
      {runs ? (
        <Pickers runs={runs} baseline={pair?.baseline ?? ''} candidate={pair?.candidate ?? ''} />
      ) : null}
      {runs && !pair ? <p class="muted">Pick two runs to compare.</p> : null}
      {pair && !loaded ? <Loading what="the comparison" /> : null}
      {loaded && !loaded.ok ? <Problem text={loaded.error} /> : null}
      {loaded?.ok ? <Comparison result={loaded.data} /> : null}
    </section>
  )
}

/** The query's pair; a candidate alone is compared with the run before it; nothing, with the last two runs. */
function defaultPair(
  runs: readonly RunEntry[],
  baseline: string | null,
  candidate: string | null,
): { baseline: string; candidate: string } | null {
  if (baseline && candidate) return { baseline, candidate }
  if (candidate) {
    const entry = runs.find((r) => r.run === candidate)
    const previous = entry ? previousRun(runs, entry) : null
    return previous ? { baseline: previous.run, candidate } : null
  }
  return baseline ? null : lastTwo(runs)
}

function Pickers({
  runs,
  baseline,
  candidate,
}: {
  runs: readonly RunEntry[]
  baseline: string
  candidate: string
}) {
  const valid = validRunsInOrder(runs).reverse()
  const go = (next: { baseline: string; candidate: string }) =>
    navigate(withQuery('/compare', next), { replace: true })
  const picker = (label: string, testid: string, value: string, set: (run: string) => void) => (
    <label class="select">
      {label}{' '}
      <select data-testid={testid} value={value} onChange={(e) => set(e.currentTarget.value)}>
        {value === '' || !valid.some((r) => r.run === value) ? (
          <option value={value}>{value || 'pick a run'}</option>
        ) : null}
        {valid.map((r) => (
          <option key={r.run} value={r.run}>
            {`${r.runId || r.run}${r.startedAt ? ` · ${r.startedAt.slice(0, 16).replace('T', ' ')}` : ''}`}
          </option>
        ))}
      </select>
    </label>
  )
  return (
    <div class="table-tools">
      {picker('Baseline', 'compare-baseline', baseline, (run) => go({ baseline: run, candidate }))}
      {picker('Candidate', 'compare-candidate', candidate, (run) => go({ baseline, candidate: run }))}
    </div>
  )
}

export function Comparison({ result }: { result: CompareResponse }) {
  return (
    <div data-testid="compare-result">
      <p class="headline">
        <span data-testid="compare-verdict">
          <VerdictText verdict={result.verdict} />
        </span>
        {` · ${result.reason}`}
      </p>
      <p data-testid="compare-delta">
        {`Change ${points(result.delta)} ${pointsInterval(result.deltaCi)}, ${pValue(result.pValue)} (${result.test}, ${result.pairedTasks} paired tasks)`}
      </p>
      <TaskList title="Broken" testid="compare-broken" tasks={result.broken} result={result} />
      <TaskList title="Regressed" testid="compare-regressed" tasks={result.regressed} result={result} />
      <TaskList title="Improved" testid="compare-improved" tasks={result.improved} result={result} />
      <OnlyIn
        title={`Only in the baseline (${result.baseline})`}
        keys={result.baselineOnly}
        run={result.baseline}
      />
      <OnlyIn
        title={`Only in the candidate (${result.candidate})`}
        keys={result.candidateOnly}
        run={result.candidate}
      />
    </div>
  )
}

function TaskList(props: {
  title: string
  testid: string
  tasks: readonly ComparedTask[]
  result: CompareResponse
}) {
  const { baseline, candidate } = props.result
  return (
    <section data-testid={props.testid}>
      <h2>{`${props.title} (${props.tasks.length})`}</h2>
      {props.tasks.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <table class="data compare-tasks">
          <thead>
            <tr>
              <th>Task</th>
              <th class="num">Baseline</th>
              <th class="num">Candidate</th>
            </tr>
          </thead>
          <tbody>
            {props.tasks.map((t) => (
              <tr key={t.taskKey} class="r" data-testid="compare-task" data-task={t.taskKey}>
                <td>{t.taskKey}</td>
                <td class="num">
                  <a href={taskUrl('', baseline, t.taskKey)}>{percent(t.baseline)}</a>
                </td>
                <td class="num">
                  <a href={taskUrl('', candidate, t.taskKey)}>{percent(t.candidate)}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function OnlyIn({ title, keys, run }: { title: string; keys: readonly string[]; run: string }) {
  if (keys.length === 0) return null
  return (
    <section>
      <h3>{`${title}: ${keys.length}`}</h3>
      <ul class="tasks-inline">
        {keys.map((key) => (
          <li key={key}>
            <a href={taskUrl('', run, key)}>{key}</a>
          </li>
        ))}
      </ul>
    </section>
  )
}
