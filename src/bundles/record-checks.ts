import type { RunMetadata, ScoresRecords } from '../core/index.ts'
import { quote, type FindingList } from './findings.ts'
import { describeTrial, METADATA_FILE, recordKey, SCORES_FILE, trialKeyString } from './layout.ts'

type Keyed = { benchmark: { id: string }; taskId: string; trial: number }

/** Consistency between metadata and scores: the same rules for a bundle being written and one being read. */
export function checkRecords(
  metadata: RunMetadata | undefined,
  scores:
    | (Pick<ScoresRecords, 'schemaVersion' | 'runId'> & {
        trials: readonly Keyed[]
      })
    | undefined,
  findings: FindingList,
): void {
  if (metadata && scores) checkRecordCounts(metadata, { ...scores, count: scores.trials.length }, findings)
  if (!scores) return
  const seen = new Set<string>()
  scores.trials.forEach((trial, index) => {
    // Two benchmarks may share task ids, so a trial is only a duplicate within its own benchmark.
    const key = trialKeyString(recordKey(trial))
    if (seen.has(key)) duplicateTrial(trial, index, findings)
    seen.add(key)
  })
}

/**
 * The trials of a scores.json being sealed, checked as they pass in bundle order instead of held: run ids, and
 * duplicates (in bundle order a duplicate is next to its twin). checkRecordCounts then holds the count.
 */
export class StreamedTrialKeys {
  count = 0
  private previous: string | undefined

  constructor(
    private readonly runId: string,
    readonly findings: FindingList,
  ) {}

  /** The next trial in bundle order. */
  add(trial: Keyed & { runId: string }): void {
    const index = this.count++
    if (trial.runId !== this.runId) foreignRunId(trial, index, this.runId, this.findings)
    const key = trialKeyString(recordKey(trial))
    if (key === this.previous) duplicateTrial(trial, index, this.findings)
    this.previous = key
  }
}

/** A trial of this bundle whose record names another run. */
export function foreignRunId(
  trial: Keyed & { runId: string },
  index: number,
  runId: string,
  findings: FindingList,
): void {
  findings.add(
    'run-ids',
    SCORES_FILE,
    `trials[${index}] (${describeTrial(recordKey(trial))}) has runId ${JSON.stringify(trial.runId)}, not the run's ${JSON.stringify(runId)}`,
    { key: 'scores:trial-runId', label: 'trials with a foreign runId' },
  )
}

function duplicateTrial(trial: Keyed, index: number, findings: FindingList): void {
  findings.add(
    'duplicate-trials',
    SCORES_FILE,
    `trials[${index}]: ${describeTrial(recordKey(trial))} appears more than once`,
    {
      key: 'scores:duplicate',
      label: 'duplicate trials',
    },
  )
}

/** The metadata against scores.json's header and its number of trials. */
export function checkRecordCounts(
  metadata: RunMetadata,
  scores: Pick<ScoresRecords, 'schemaVersion' | 'runId'> & { count: number },
  findings: FindingList,
): void {
  if (scores.runId !== undefined && scores.runId !== metadata.runId) {
    findings.add(
      'run-ids',
      SCORES_FILE,
      `runId ${quote(scores.runId)} does not match metadata.json's ${quote(metadata.runId)}`,
    )
  }
  if (scores.schemaVersion !== metadata.schemaVersion) {
    findings.add(
      'format-version',
      SCORES_FILE,
      `schemaVersion ${scores.schemaVersion} does not match metadata.json's ${metadata.schemaVersion}`,
    )
  }
  checkMonitor(metadata, scores.count, findings)
  if (metadata.trialCount !== scores.count) {
    findings.add(
      'trial-count',
      METADATA_FILE,
      `trialCount is ${metadata.trialCount} but scores.json has ${scores.count} trial(s)`,
    )
  }
}

/** A monitor window's bundle says which window it is, and every trace it scored is one of its trials. */
function checkMonitor(metadata: RunMetadata, trials: number, findings: FindingList): void {
  const { monitor, status } = metadata
  if (status === 'monitor' && monitor === undefined)
    findings.add('monitor-window', METADATA_FILE, 'status is monitor but there is no monitor section')
  else if (status !== 'monitor' && monitor !== undefined)
    findings.add('monitor-window', METADATA_FILE, `status is ${status} but there is a monitor section`)
  else if (monitor?.counts && monitor.counts.scored !== trials)
    findings.add(
      'monitor-window',
      METADATA_FILE,
      `monitor.counts.scored is ${monitor.counts.scored} but scores.json has ${trials} trial(s)`,
    )
  else if (monitor && Date.parse(monitor.window.end) <= Date.parse(monitor.window.start))
    findings.add('monitor-window', METADATA_FILE, 'monitor.window ends before it starts')
}
