import { DataTable } from '../components/data-table.tsx'
import { Facts } from '../components/facts.tsx'
import { Section } from '../components/section.tsx'
import { TaskList } from '../components/task-list.tsx'
import type { ComparisonData, TaskLink } from '../../src/reports/html/page-data.ts'

/** The run against its baseline: the verdict, the change in pass rate, the metrics, the tasks that moved. */
export function Comparison({ c, onOpenTask }: { c: ComparisonData; onOpenTask: (task: number) => void }) {
  const moved = (title: string, links: TaskLink[], testid: string, none: string) => [
    <h3 key={`${testid}-h`}>{`${title} (${links.length})`}</h3>,
    links.length > 0 ? (
      <TaskList
        key={testid}
        links={links}
        total={links.length}
        testid={testid}
        max={100}
        onOpenTask={onOpenTask}
      />
    ) : (
      <p key={testid} class="muted">
        {none}
      </p>
    ),
  ]
  return (
    <Section id="comparison" title="Baseline comparison">
      <p class="headline">
        {'Verdict '}
        <strong class={`verdict v-${c.verdict}`} data-testid="comparison-verdict">
          {c.verdict}
        </strong>
        {` — ${c.reason}`}
      </p>
      <p>
        {'Pass rate Δ '}
        <strong data-testid="comparison-delta">{c.delta}</strong>
        {' ('}
        <span data-testid="comparison-delta-ci">{c.deltaCi}</span>
        {'), p = '}
        <span data-testid="comparison-p">{c.pValue}</span>
        {` (${c.test})`}
      </p>
      <Facts pairs={[['Baseline run', c.baseline], ...c.facts]} testid="comparison-facts" />
      <DataTable spec={c.metrics} onOpenTask={onOpenTask} />
      {moved(
        'Broken tasks',
        c.broken,
        'broken',
        'No task that always passed in the baseline fails in every trial now.',
      )}
      {moved('Regressed tasks', c.regressed, 'regressed', 'No paired task got worse.')}
      {moved('Improved tasks', c.improved, 'improved', 'No paired task got better.')}
    </Section>
  )
}
