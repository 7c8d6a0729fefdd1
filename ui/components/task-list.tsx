import type { TaskLink } from '../../src/reports/html/page-data.ts'

/** Task names that open their task, the first `max` of them, then how many more of `total` there are. */
export function TaskList(props: {
  links: readonly TaskLink[]
  total: number
  testid: string
  max: number
  onOpenTask: (task: number) => void
}) {
  const shown = props.links.slice(0, props.max)
  return (
    <ul class="tasks-inline" data-testid={props.testid}>
      {shown.map((link, i) => (
        <li key={i} data-testid="task-link">
          {link.task === null ? (
            <span>{link.label}</span>
          ) : (
            <LinkButton label={link.label} onClick={() => props.onOpenTask(link.task!)} />
          )}
        </li>
      ))}
      {props.total > shown.length && <li class="more">{`… and ${props.total - shown.length} more`}</li>}
    </ul>
  )
}

/** A button that looks like a link and opens a task. */
export function LinkButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" class="link" data-testid="open-task" onClick={onClick}>
      {label}
    </button>
  )
}
