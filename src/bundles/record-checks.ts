import type { RunMetadata, ScoresRecords } from '../core/index.ts'
import { quote, type FindingList } from './findings.ts'
import { describeTrial, METADATA_FILE, recordKey, SCORES_FILE, trialKeyString } from './layout.ts'

/** Consistency between metadata and scores: the same rules for a bundle being written and one being read. */
export function checkRecords(
  metadata: RunMetadata | undefined,
  scores:
    | (Pick<ScoresRecords, 'schemaVersion' | 'runId'> & {
        trials: readonly { benchmark: { id: string }; taskId: string; trial: number }[]
      })
    | undefined,
  findings: FindingList,
): void {
  if (metadata && scores) {
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
    checkMonitor(metadata, scores.trials.length, findings)
    if (metadata.trialCount !== scores.trials.length) {
      findings.add(
        'trial-count',
        METADATA_FILE,
        `trialCount is ${metadata.trialCount} but scores.json has ${scores.trials.length} trial(s)`,
      )
    }
  }
  if (!scores) return
  const seen = new Set<string>()
  scores.trials.forEach((trial, index) => {
    // Two benchmarks may share task ids, so a trial is only a duplicate within its own benchmark.
    const key = trialKeyString(recordKey(trial))
    if (seen.has(key)) {
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
    seen.add(key)
  })
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
