import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { Expandable, TextBlock } from '../components/expandable.tsx'
import type { FindingData, ScoreData, TrialData, VerdictData } from '../../src/reports/html/page-data.ts'
import { citationsOf, stepId } from './citations.ts'
import { STEP_CHUNK, Timeline } from './timeline.tsx'

interface Props {
  ti: number
  trial: TrialData
  kinds: readonly string[]
}

/** Going to a step: which one, and a counter so that going to the same step again scrolls again. */
interface Target {
  step: number
  seq: number
}

/**
 * A trial opened: its answer, errors, evaluator scores and policy verdicts with their findings, and its timeline.
 * A citation links to its step: following it draws the step if not drawn yet, scrolls there and highlights it.
 */
export function TrialBody({ ti, trial, kinds }: Props) {
  const events = trial.events
  const [shown, setShown] = useState(Math.min(STEP_CHUNK, events.length))
  const [target, setTarget] = useState<Target | null>(null)
  const tbody = useRef<HTMLTableSectionElement>(null)
  const cited = useMemo(() => citationsOf(trial), [trial])
  const steps = useMemo(() => new Set(events.map((e) => e[0])), [events])

  const goToStep = (step: number) => {
    if (!steps.has(step)) return
    if (!events.slice(0, shown).some((e) => e[0] === step)) setShown(events.length)
    setTarget((old) => ({ step, seq: (old?.seq ?? 0) + 1 }))
  }
  useLayoutEffect(() => {
    if (!target) return
    const row = tbody.current?.querySelector<HTMLElement>(`tr[data-step="${target.step}"]`)
    if (!row) return
    row.scrollIntoView({ block: 'center' })
    row.focus({ preventScroll: true })
  }, [target])

  const links = { ti, steps, goToStep }
  return (
    <div class="trial-body">
      {trial.error !== undefined && [
        <h4 key="eh">Error</h4>,
        <TextBlock key="e" text={trial.error} testid="trial-error" />,
      ]}
      {trial.thrown !== undefined && [
        <h4 key="th">What the agent threw</h4>,
        <TextBlock key="t" text={trial.thrown} testid="trial-stack" />,
      ]}
      <h4>Final answer</h4>
      {trial.answer === null ? (
        <p class="muted" data-testid="no-final-answer">
          No final answer.
        </p>
      ) : (
        <TextBlock text={trial.answer} testid="final-answer" />
      )}
      {trial.phases && [
        <h4 key="ph">Phases</h4>,
        <ul key="p" class="phases" data-testid="phases">
          {trial.phases.map((p, i) => (
            <li key={i}>{`${p.name} ${p.text}`}</li>
          ))}
        </ul>,
      ]}
      {trial.scores.length > 0 && [
        <h4 key="sh">Evaluator scores</h4>,
        <ul key="s" class="scores">
          {trial.scores.map((s, i) => (
            <ScoreItem key={i} score={s} links={links} />
          ))}
        </ul>,
      ]}
      {trial.verdicts && [
        <h4 key="vh">Policy verdicts</h4>,
        <ul key="v" class="scores">
          {trial.verdicts.map((v, i) => (
            <VerdictItem key={i} verdict={v} links={links} />
          ))}
        </ul>,
      ]}
      {trial.warnings && [
        <h4 key="wh">Warnings</h4>,
        <ul key="w" data-testid="warnings">
          {trial.warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>,
      ]}
      <h4>{`Timeline (${events.length} events)`}</h4>
      <Timeline
        ti={ti}
        trial={trial.trial}
        events={events}
        kinds={kinds}
        cited={cited}
        shown={shown}
        onShowAll={() => setShown(events.length)}
        highlighted={target?.step ?? null}
        tbodyRef={tbody}
      />
    </div>
  )
}

interface Links {
  ti: number
  steps: Set<number>
  goToStep: (step: number) => void
}

/** Links to the cited steps; one the trace lacks is struck through and goes nowhere. */
function Citations({ steps, links }: { steps: readonly number[]; links: Links }) {
  return (
    <>
      {steps.map((step, i) => {
        const present = links.steps.has(step)
        return [
          ' ',
          <a
            key={i}
            href={`#${stepId(links.ti, step)}`}
            class={present ? 'cite' : 'cite missing'}
            data-testid="citation"
            data-step={step}
            title={present ? `Show step ${step}` : `Step ${step} is not in the trace`}
            onClick={(e) => {
              e.preventDefault()
              links.goToStep(step)
            }}
          >
            {`step ${step}`}
          </a>,
        ]
      })}
    </>
  )
}

function Findings({ findings, links }: { findings: readonly FindingData[] | undefined; links: Links }) {
  if (!findings) return null
  return (
    <ul class="findings">
      {findings.map((f, i) => (
        <li key={i} class="finding" data-testid="finding" data-type={f.type}>
          <span class="tag">{f.type}</span> <Expandable text={f.message} testid="finding-message" />
          {f.citations && [' —', <Citations key="c" steps={f.citations} links={links} />]}
        </li>
      ))}
    </ul>
  )
}

function ScoreItem({ score: s, links }: { score: ScoreData; links: Links }) {
  return (
    <li class="score" data-testid="score" data-evaluator={s.evaluator}>
      <div>
        <strong>{s.evaluator}</strong>
        {` (${s.kind}) `}
        <span class={`status s-${s.status}`} data-testid="score-status">
          {`${s.score} ${s.status}`}
        </span>
        {s.citations && [' — cites', <Citations key="c" steps={s.citations} links={links} />]}
      </div>
      {s.error !== undefined && <div class="error">{`could not judge: ${s.error}`}</div>}
      {s.thrown !== undefined && <TextBlock text={s.thrown} testid="score-stack" />}
      {s.explanation && (
        <div class="explanation">
          <Expandable text={s.explanation} testid="explanation" />
        </div>
      )}
      <Findings findings={s.findings} links={links} />
    </li>
  )
}

function VerdictItem({ verdict: v, links }: { verdict: VerdictData; links: Links }) {
  return (
    <li class="score" data-testid="verdict" data-checker={v.checker}>
      <div>
        <strong>{v.checker}</strong> <span class={`status v-${v.verdict}`}>{v.verdict}</span>
      </div>
      <Findings findings={v.findings} links={links} />
    </li>
  )
}
