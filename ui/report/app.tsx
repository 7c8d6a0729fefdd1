import type { VNode } from 'preact'
import { useCallback, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { BarChart } from '../components/bar-chart.tsx'
import { DataTable } from '../components/data-table.tsx'
import { Section } from '../components/section.tsx'
import type { PageData, TableData } from '../../src/reports/html/page-data.ts'
import { Comparison } from './comparison.tsx'
import { Headline } from './headline.tsx'
import type { Report } from './read-report.ts'
import { parseRoute, routeHash } from './route.ts'
import { RunHeader } from './run-header.tsx'
import { TaskPanel, type OpenTask } from './task-panel.tsx'

/** The whole page: the run, its sections in report.md's order, and the task panel below the tasks table. */
export function App({ report }: { report: Report }) {
  const { data } = report
  const { open, hidden, openTask, openTrial, close } = useTaskRoute(report)
  const table = (spec: TableData, ready?: boolean) => (
    <DataTable spec={spec} onOpenTask={(task) => openTask(task)} ready={ready} />
  )
  const sections: { id: string; title: string; node: VNode }[] = [
    {
      id: 'overall',
      title: 'Overall',
      node: <Headline hl={data.headline} tasks={data.tables.tasks.rows.length} onOpenTask={openTask} />,
    },
  ]
  const add = (id: string, title: string, body: VNode | VNode[]) =>
    sections.push({
      id,
      title,
      node: (
        <Section id={id} title={title}>
          {body}
        </Section>
      ),
    })
  if (data.comparison) {
    sections.push({
      id: 'comparison',
      title: 'Baseline comparison',
      node: <Comparison c={data.comparison} onOpenTask={openTask} />,
    })
  }
  add('benchmarks', 'Benchmarks', table(data.tables.benchmarks))
  if (data.tables.categories) add('categories', 'Categories', table(data.tables.categories))
  add('tasks', 'Tasks', [
    <p key="p" class="muted">
      Click a header to sort, a task to open its trials and traces.
    </p>,
    <DataTable key="t" spec={data.tables.tasks} onOpenTask={openTask} ready />,
  ])
  const tasksAt = sections.length
  add('flaky', 'Flaky tasks', <Flaky data={data} table={table} />)
  if (data.tables.evaluators) add('evaluators', 'Evaluators', table(data.tables.evaluators))
  add('usage', 'Cost and tokens', [
    <div key="c" class="charts">
      {data.charts.map((chart) => (
        <BarChart key={chart.id} chart={chart} />
      ))}
    </div>,
    <DataTable key="t" spec={data.tables.usage} onOpenTask={openTask} />,
    <p key="p" data-testid="cost-per-solved">{`Cost per solved task: ${data.costPerSolved}.`}</p>,
  ])
  add('outcomes', 'Outcomes', table(data.tables.outcomes))
  const panel = (
    <TaskPanel report={report} open={open} hidden={hidden} onClose={close} onOpenTrial={openTrial} />
  )
  return (
    <>
      <RunHeader data={data} />
      <nav class="toc">
        {sections.map((s) => (
          <a key={s.id} href={`#${s.id}`}>
            {s.title}
          </a>
        ))}
      </nav>
      {sections.slice(0, tasksAt).map((s) => s.node)}
      {panel}
      {sections.slice(tasksAt).map((s) => s.node)}
    </>
  )
}

function Flaky({ data, table }: { data: PageData; table: (spec: TableData) => VNode }) {
  const flaky = data.tables.flaky
  if (!flaky) return <p class="muted">Every task ran once: flakiness needs several trials per task.</p>
  if (flaky.rows.length === 0) {
    return (
      <p data-testid="no-flaky">{`None of ${data.tasks.length} tasks passed in some trials and failed in others.`}</p>
    )
  }
  return (
    <>
      <p>{`${flaky.rows.length} tasks passed in some trials and failed in others, least consistent first. Consistency: (2p − 1)².`}</p>
      {table(flaky)}
    </>
  )
}

/**
 * Which task is open, kept in step with location.hash both ways: `#task=…&trial=…` opens it on load and on
 * hashchange, and opening a task or a trial writes its hash, so the address bar always points at what is shown.
 */
function useTaskRoute(report: Report) {
  const seq = useRef(0)
  const taskIndex = useRef<Map<string, number> | null>(null)
  const fromHash = (hash: string): OpenTask | null => {
    const route = parseRoute(hash)
    if (route === null) return null
    taskIndex.current ??= new Map(report.tasks.map((t, i) => [t.key, i]))
    const task = taskIndex.current.get(route.task)
    return task === undefined ? null : { task, trial: route.trial, seq: ++seq.current }
  }
  const [open, setOpen] = useState<OpenTask | null>(() => fromHash(location.hash))
  const [hidden, setHidden] = useState(false)
  // The hash this page wrote last: its own hashchange is not a link to follow.
  const written = useRef(location.hash)
  const write = (hash: string) => {
    written.current = hash
    if (location.hash !== hash) location.hash = hash
  }

  // Listening from the first render on: a hashchange right after it is not missed.
  useLayoutEffect(() => {
    const follow = () => {
      if (location.hash === written.current) return
      written.current = location.hash
      const next = fromHash(location.hash)
      if (next === null) return
      setOpen(next)
      setHidden(false)
    }
    window.addEventListener('hashchange', follow)
    return () => window.removeEventListener('hashchange', follow)
  }, [])

  const openTask = useCallback((task: number) => {
    const t = report.tasks[task]
    if (!t) return
    write(routeHash({ task: t.key, trial: null }))
    setOpen({ task, trial: null, seq: ++seq.current })
    setHidden(false)
  }, [])
  const openTrial = useCallback((task: number, trial: number) => {
    const t = report.tasks[task]
    if (t) write(routeHash({ task: t.key, trial }))
  }, [])
  const close = useCallback(() => {
    setHidden(true)
    write('')
  }, [])
  return { open, hidden, openTask, openTrial, close }
}
