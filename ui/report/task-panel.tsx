import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { Report } from './read-report.ts'
import { TrialBody } from './trial-body.tsx'

export interface OpenTask {
  /** Index into Report.tasks. */
  task: number
  /** The trial number a link named, or null: the first failing trial (else the first) opens. */
  trial: number | null
  /** Counts openings: each one draws the panel afresh and scrolls to it. */
  seq: number
}

interface Props {
  report: Report
  open: OpenTask | null
  hidden: boolean
  onClose: () => void
  /** The user opened a trial's panel (not the page on their behalf). */
  onOpenTrial: (task: number, trial: number) => void
}

/** The task drill-down: one task's trials, each built only when opened, the one to look at opened first. */
export function TaskPanel({ report, open, hidden, onClose, onOpenTrial }: Props) {
  const task = open === null ? undefined : report.tasks[open.task]
  return (
    <section
      id="task"
      class="task-detail"
      data-testid="task-detail"
      data-task={task?.key}
      hidden={hidden || task === undefined}
    >
      {open !== null && task !== undefined && (
        <TaskBody key={open.seq} report={report} open={open} onClose={onClose} onOpenTrial={onOpenTrial} />
      )}
    </section>
  )
}

function TaskBody({
  report,
  open,
  onClose,
  onOpenTrial,
}: Omit<Props, 'hidden' | 'open'> & { open: OpenTask }) {
  const task = report.tasks[open.task]!
  const named =
    open.trial === null ? -1 : task.trials.findIndex((ti) => report.trials[ti]!.trial === open.trial)
  const failing = task.trials.findIndex((ti) => !report.trials[ti]!.passed)
  const first = named >= 0 ? named : Math.max(failing, 0)
  const head = useRef<HTMLDivElement>(null)
  const opened = useRef<HTMLDetailsElement>(null)
  useLayoutEffect(() => {
    const to = named >= 0 ? opened.current : head.current?.parentElement
    to?.scrollIntoView({ block: 'start' })
  }, [])
  return (
    <>
      <div class="detail-head" ref={head}>
        <h2 data-testid="task-title">{task.key}</h2>
        <button type="button" class="close" data-testid="close-task" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="muted" data-testid="task-line">
        {task.line}
      </p>
      {task.trials.length > 0 ? (
        <div>
          {task.trials.map((ti, i) => (
            <TrialPanel
              key={ti}
              report={report}
              ti={ti}
              initiallyOpen={i === first}
              panelRef={i === first ? opened : undefined}
              onUserOpen={() => onOpenTrial(open.task, report.trials[ti]!.trial)}
            />
          ))}
        </div>
      ) : (
        <p>No trials recorded.</p>
      )}
    </>
  )
}

function TrialPanel(props: {
  report: Report
  ti: number
  initiallyOpen: boolean
  panelRef: { current: HTMLDetailsElement | null } | undefined
  onUserOpen: () => void
}) {
  const { report, ti } = props
  const trial = report.trials[ti]!
  const [open, setOpen] = useState(props.initiallyOpen)
  // Built on first opening, kept when closed: a task of many trials draws only those looked at.
  const [built, setBuilt] = useState(props.initiallyOpen)
  const onToggle = (e: Event) => {
    const now = (e.currentTarget as HTMLDetailsElement).open
    // The toggle event also follows the page's own opening; only a change the user made counts.
    if (now === open) return
    setOpen(now)
    if (now) {
      setBuilt(true)
      props.onUserOpen()
    }
  }
  return (
    <details
      class={`trial ${trial.passed ? 'passed' : 'not-passed'}`}
      data-testid="trial"
      data-trial={trial.trial}
      open={open}
      onToggle={onToggle}
      ref={props.panelRef}
    >
      <summary>
        {`Trial ${trial.trial} — `}
        <span class={`outcome o-${trial.outcome}`} data-testid="trial-outcome">
          {trial.outcome}
        </span>
        {` · ${trial.line}`}
      </summary>
      {built && <TrialBody ti={ti} trial={trial} kinds={report.data.kinds} />}
    </details>
  )
}
