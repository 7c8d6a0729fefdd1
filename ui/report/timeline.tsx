import { Expandable } from '../components/expandable.tsx'
import type { EventData } from '../../src/reports/html/page-data.ts'
import { stepId } from './citations.ts'
import { describeEvent } from './describe-event.ts'

/** Steps drawn at first: a trace of thousands of events draws the rest on request. */
export const STEP_CHUNK = 500

const HEADS = ['Step', 'Time', 'Kind', 'Model / tool', 'Details', 'Usage']

export interface TimelineProps {
  ti: number
  trial: number
  events: readonly EventData[]
  kinds: readonly string[]
  cited: Map<number, string[]>
  /** How many of the events are drawn. */
  shown: number
  onShowAll: () => void
  /** The step a citation last went to: its first row is highlighted. */
  highlighted: number | null
  tbodyRef: { current: HTMLTableSectionElement | null }
}

/** A trial's trace as a table, one row an event, each naming who cited its step. */
export function Timeline(props: TimelineProps) {
  const { events, shown } = props
  if (events.length === 0) {
    return (
      <p class="muted" data-testid="timeline-empty">
        No trace events for this trial.
      </p>
    )
  }
  const firstOfStep = new Set<number>()
  const rows = events.slice(0, shown).map((event, i) => {
    const first = !firstOfStep.has(event[0])
    firstOfStep.add(event[0])
    return (
      <EventRow
        key={i}
        {...props}
        event={event}
        highlighted={first && props.highlighted === event[0]}
        first={first}
      />
    )
  })
  const rest = events.length - shown
  return (
    <div class="timeline-wrap">
      <table class="timeline" data-testid="timeline" data-trial={props.trial} data-steps={events.length}>
        <thead>
          <tr>
            {HEADS.map((label) => (
              <th key={label} scope="col">
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={props.tbodyRef}>{rows}</tbody>
      </table>
      <button
        type="button"
        class="expand"
        data-testid="more-steps"
        hidden={rest <= 0}
        onClick={props.onShowAll}
      >
        {`show ${rest} more steps`}
      </button>
    </div>
  )
}

function EventRow(props: {
  ti: number
  event: EventData
  kinds: readonly string[]
  cited: Map<number, string[]>
  highlighted: boolean
  first: boolean
}) {
  const [step, ms, kindRef, payload, usage] = props.event
  const kind = typeof kindRef === 'number' ? (props.kinds[kindRef] ?? String(kindRef)) : kindRef
  const d = describeEvent(kind, payload)
  return (
    <tr
      id={props.first ? stepId(props.ti, step) : undefined}
      class={`step k-${kind.replace('.', '-')}${props.highlighted ? ' hl' : ''}`}
      data-testid="step"
      data-step={step}
      data-kind={kind}
      tabIndex={-1}
    >
      <td class="num">{String(step)}</td>
      <td class="num">{`+${(ms / 1000).toFixed(3)} s`}</td>
      <td>{kind}</td>
      <td data-testid="step-who">{d.who}</td>
      <td class="detail">
        <Expandable text={d.text} full={d.full} testid="step-detail" />
        {(props.cited.get(step) ?? []).map((label) => (
          <span key={label} class="cited-by" data-testid="cited-by">
            {`cited by ${label}`}
          </span>
        ))}
      </td>
      <td class="num">{usage ?? ''}</td>
    </tr>
  )
}
