import { BUNDLE_FORMAT_VERSION, sha256, type ScoredTrial, type TraceEvent } from '../core/index.ts'
import type { CheckName } from './checks.ts'
import { quote, type FindingList } from './findings.ts'
import { describeTrial, TRACES_FILE, TrialResolver, trialKeyString, type TrialKey } from './layout.ts'
import { TraceClaims } from './trace-claims.ts'

interface TrialTrace extends TrialKey {
  lastStep: number
  terminals: number
  events: number
}

/** Trials outside the expected list that are followed individually; the events of any more are only counted. */
const MAX_UNEXPECTED_TRIALS = 100_000
/** Longer ids are keyed by their hash, so that a hostile trace cannot make each key megabytes long. */
const MAX_KEY_CHARS = 256

/**
 * The consistency rules for a trace stream, checked one event at a time so that neither the writer nor the
 * validator has to hold a whole trace in memory: one run id, each trial's events together, steps strictly
 * increasing from 0 within a trial, and (at the end) exactly one terminal event for every trial the scores know.
 * A trial is (benchmark, task, trial). Order between trials is the writer's caller's choice (the reporter orders by
 * benchmark, task, trial), so only contiguity is checked. Memory is bounded by the expected trials plus
 * MAX_UNEXPECTED_TRIALS.
 */
export class TraceChecker {
  private readonly trials = new Map<string, TrialTrace>()
  private readonly expected: Map<string, TrialKey> | undefined
  private readonly resolver: TrialResolver
  private current: TrialTrace | undefined
  private currentKey: string | undefined
  private unexpected = 0
  private untrackedEvents = 0
  private count = 0
  private claims: TraceClaims | undefined

  /**
   * `expected` is the scores' list of trials, or undefined when scores.json could not be read. `formatVersion` is
   * the bundle's: events name their benchmark from format 3 on.
   */
  constructor(
    private readonly runId: string | undefined,
    private readonly findings: FindingList,
    expected: readonly TrialKey[] | undefined,
    private readonly formatVersion = BUNDLE_FORMAT_VERSION,
    private readonly file = TRACES_FILE,
  ) {
    this.expected = expected && new Map(expected.map((key) => [trackingKey(key), key]))
    this.resolver = new TrialResolver(expected)
  }

  /**
   * Also holds the trace against what these records say about it (eventCount, citations) and pairs tool calls with
   * their results. A validator's rule only: the writer checks the trace it is given, not the engine's records.
   */
  checkClaims(trials: readonly ScoredTrial[]): void {
    this.claims = new TraceClaims(trials, trackingKey, this.findings)
  }

  get eventCount(): number {
    return this.count
  }

  /**
   * `where` locates the event for a reader of the finding, e.g. "line 12". Returns the event's benchmark: its own,
   * or for an event of a format that did not name it, the one the scores have its task in ('' when unknown).
   */
  add(event: TraceEvent, where: string): string {
    this.count += 1
    if (event.benchmark === undefined && this.formatVersion >= 3) {
      this.report(
        'trace-schema',
        `${where}: the event names no benchmark (every event does from format 3 on)`,
        'benchmark',
        'events without a benchmark',
      )
    }
    if (this.runId !== undefined && event.runId !== this.runId) {
      this.report(
        'run-ids',
        `${where}: runId ${quote(event.runId)} does not match the run's ${quote(this.runId)}`,
        'runId',
        'events with a foreign runId',
      )
    }
    const key = this.resolver.keyOf(event)
    const trial = this.enter(key, where)
    if (!trial) return key.benchmark
    this.claims?.event(this.currentKey!, key, event, where)
    trial.events += 1
    if (event.kind === 'agent.terminal') trial.terminals += 1
    if (trial.lastStep === -1 && event.step !== 0) {
      this.report(
        'trace-steps',
        `${where}: ${describeTrial(trial)} starts at step ${event.step}, expected 0`,
        'steps',
        'step errors',
      )
    } else if (trial.lastStep !== -1 && event.step <= trial.lastStep) {
      this.report(
        'trace-steps',
        `${where}: step ${event.step} of ${describeTrial(trial)} does not follow step ${trial.lastStep} (steps must strictly increase)`,
        'steps',
        'step errors',
      )
    }
    trial.lastStep = Math.max(trial.lastStep, event.step)
    return key.benchmark
  }

  finish(): void {
    this.claims?.finish()
    if (this.expected) {
      for (const [key, trial] of this.expected) {
        if (!this.trials.has(key)) {
          this.report(
            'trials-match-traces',
            `${describeTrial(trial)} is in scores.json but has no events`,
            'missing',
            'trials without events',
          )
        }
      }
      for (const [key, trial] of this.trials) {
        if (!this.expected.has(key)) {
          this.report(
            'trials-match-traces',
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
          'trace-terminal',
          `${describeTrial(trial)} has ${trial.terminals} agent.terminal events, expected exactly 1`,
          'terminal',
          'trials with a wrong number of terminal events',
        )
      }
    }
    if (this.untrackedEvents > 0) {
      this.findings.add(
        'size-limits',
        this.file,
        `${this.untrackedEvents} event(s) of trials beyond the first ${MAX_UNEXPECTED_TRIALS} that scores.json does not list were not checked`,
      )
    }
  }

  /** The trial of an event, or undefined when it is one too many to follow. */
  private enter(event: TrialKey, where: string): TrialTrace | undefined {
    const key = trackingKey(event)
    if (this.current && this.currentKey === key) return this.current
    let trial = this.trials.get(key)
    if (trial) {
      this.report(
        'trace-order',
        `${where}: events of ${describeTrial(trial)} resume after other trials' events (a trial's events must be contiguous)`,
        'order',
        'ordering errors',
      )
    } else {
      const isExpected = this.expected?.has(key) ?? false
      if (!isExpected && this.unexpected >= MAX_UNEXPECTED_TRIALS) {
        this.untrackedEvents += 1
        return undefined
      }
      if (!isExpected) this.unexpected += 1
      trial = {
        benchmark: shorten(event.benchmark),
        taskId: shorten(event.taskId),
        trial: event.trial,
        lastStep: -1,
        terminals: 0,
        events: 0,
      }
      this.trials.set(key, trial)
    }
    this.current = trial
    this.currentKey = key
    return trial
  }

  private report(check: CheckName, message: string, kind: string, label: string): void {
    this.findings.add(check, this.file, message, { key: `${this.file}:${kind}`, label })
  }
}

function trackingKey(key: TrialKey): string {
  return trialKeyString({
    benchmark: hashLong(key.benchmark),
    taskId: hashLong(key.taskId),
    trial: key.trial,
  })
}

function hashLong(id: string): string {
  return id.length <= MAX_KEY_CHARS ? id : `\u0000sha256:${sha256(id)}`
}

function shorten(id: string): string {
  return id.length <= MAX_KEY_CHARS ? id : id.slice(0, MAX_KEY_CHARS)
}
