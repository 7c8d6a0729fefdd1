import { DataTable } from '../components/data-table.tsx'
import { TaskList } from '../components/task-list.tsx'
import type { HeadlineData } from '../../src/reports/html/page-data.ts'

/** The overall figures: per group when the run mixes benchmarks or targets, the pooled rate with its interval. */
export function Headline(props: { hl: HeadlineData; tasks: number; onOpenTask: (task: number) => void }) {
  const { hl, onOpenTask } = props
  return (
    <section id="overall" data-testid="headline">
      <h2>Overall</h2>
      {hl.groups && [
        <p key="g">{`Per benchmark and target (${hl.policy}):`}</p>,
        <DataTable key="t" spec={hl.groups} onOpenTask={onOpenTask} />,
      ]}
      {hl.pooled ? (
        <PooledFigure hl={hl} />
      ) : (
        <p class="callout" data-testid="headline-note">
          {hl.note}
        </p>
      )}
      <p data-testid="headline-passed">{`${hl.passed} of ${hl.n} trials passed.`}</p>
      {hl.neverPassedCount > 0 && (
        <div class="callout warn" data-testid="never-passed">
          <strong>{`⚠ ${hl.neverPassedCount}${hl.neverPassedCount === 1 ? ' task' : ' tasks'} never passed:`}</strong>
          <TaskList
            links={hl.neverPassed}
            total={hl.neverPassedCount}
            testid="never-passed-list"
            max={50}
            onOpenTask={onOpenTask}
          />
        </div>
      )}
      {hl.flakyCount !== null && (
        <p data-testid="headline-flaky">
          <a href="#flaky">Flaky tasks</a>
          {`: ${hl.flakyCount} of ${props.tasks} passed in some trials and failed in others.`}
        </p>
      )}
      <p class="muted small">{`Settings: ${hl.settings}.`}</p>
    </section>
  )
}

function PooledFigure({ hl }: { hl: HeadlineData }) {
  return (
    <>
      <p class="headline">
        {hl.scope ? `Pass rate over ${hl.scope} ` : 'Pass rate '}
        <strong class="rate" data-testid="headline-rate">
          {hl.rate}
        </strong>{' '}
        <span class="ci">
          {`${hl.level} CI `}
          <span data-testid="headline-ci">{hl.ci}</span>
        </span>
      </p>
      <p>
        {'Interval: '}
        <span data-testid="headline-method">{hl.method}</span>
        {'; n = '}
        <span data-testid="headline-tasks">{String(hl.tasks)}</span>
        {' tasks, '}
        <span data-testid="headline-trials">{String(hl.trials)}</span>
        {` trials; ${hl.policy}.`}
      </p>
      <p>{hl.other}</p>
    </>
  )
}
