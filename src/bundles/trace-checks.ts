import type { TraceEvent } from '../core/index.ts'
import type { FindingList } from './findings.ts'
import { describeTrial, TRACES_FILE, trialKeyString, type TrialKey } from './layout.ts'

interface TrialTrace extends TrialKey {
  lastStep: number
  terminals: number
  events: number
}

/**
 * The consistency rules for a trace stream, checked one event at a time so that neither the writer nor the
 * validator has to hold a whole trace in memory: one run id, each trial's events together, steps strictly
 * increasing from 0 within a trial, and (at the end) exactly one terminal event for every trial the scores know.
 * Order between trials is the writer's caller's choice (the reporter orders by benchmark, task, trial), so only
 * contiguity is checked.
 */
export class TraceChecker {
  private readonly trials = new Map<string, TrialTrace>()
  private current: TrialTrace | undefined
  private count = 0

  constructor(
    private readonly runId: string | undefined,
    private readonly findings: FindingList,
    private readonly file = TRACES_FILE,
  ) {}

  get eventCount(): number {
    return this.count
  }

  /** `where` locates the event for a reader of the finding, e.g. "line 12". */
  add(event: TraceEvent, where: string): void {
    this.count += 1
    if (this.runId !== undefined && event.runId !== this.runId) {
      this.report(
        `${where}: runId ${JSON.stringify(event.runId)} does not match the run's ${JSON.stringify(this.runId)}`,
        'runId',
        'events with a foreign runId',
      )
    }
    const trial = this.enter(event, where)
    trial.events += 1
    if (event.kind === 'agent.terminal') trial.terminals += 1
    if (trial.lastStep === -1 && event.step !== 0) {
      this.report(
        `${where}: ${describeTrial(trial)} starts at step ${event.step}, expected 0`,
        'steps',
        'step errors',
      )
    } else if (trial.lastStep !== -1 && event.step <= trial.lastStep) {
      this.report(
        `${where}: step ${event.step} of ${describeTrial(trial)} does not follow step ${trial.lastStep} (steps must strictly increase)`,
        'steps',
        'step errors',
      )
    }
    trial.lastStep = Math.max(trial.lastStep, event.step)
  }

  /** `expected` is the scores' list of trials, or undefined when scores.json could not be read. */
  finish(expected: readonly TrialKey[] | undefined): void {
    if (expected) {
      const known = new Set<string>()
      for (const key of expected) {
        known.add(trialKeyString(key))
        if (!this.trials.has(trialKeyString(key))) {
          this.report(
            `${describeTrial(key)} is in scores.json but has no events`,
            'missing',
            'trials without events',
          )
        }
      }
      for (const [key, trial] of this.trials) {
        if (!known.has(key)) {
          this.report(
            `${trial.events} event(s) for ${describeTrial(trial)}, which is not in scores.json`,
            'unknown',
            'trials missing from scores.json',
          )
        }
      }
    }
    for (const trial of this.trials.values()) {
      if (trial.terminals !== 1) {
        this.report(
          `${describeTrial(trial)} has ${trial.terminals} agent.terminal events, expected exactly 1`,
          'terminal',
          'trials with a wrong number of terminal events',
        )
      }
    }
  }

  private enter(event: TraceEvent, where: string): TrialTrace {
    const key = trialKeyString(event)
    if (this.current && trialKeyString(this.current) === key) return this.current
    let trial = this.trials.get(key)
    if (trial) {
      this.report(
        `${where}: events of ${describeTrial(trial)} resume after other trials' events (a trial's events must be contiguous)`,
        'order',
        'ordering errors',
      )
    } else {
      trial = { taskId: event.taskId, trial: event.trial, lastStep: -1, terminals: 0, events: 0 }
      this.trials.set(key, trial)
    }
    this.current = trial
    return trial
  }

  private report(message: string, kind: string, label: string): void {
    this.findings.add(this.file, message, { key: `${this.file}:${kind}`, label })
  }
}
