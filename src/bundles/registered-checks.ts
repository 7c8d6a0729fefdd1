import type { RegisteredTrials, RunMetadata, ScoresRecords } from '../core/index.ts'
import type { FindingList } from './findings.ts'
import { describeTrial, METADATA_FILE, recordKey, trialKeyString, type TrialKey } from './layout.ts'

/** Trials named per finding: the count says how many more. */
const MAX_NAMED = 20

/** How the trials of a bundle differ from those its run registered. */
export interface RegisteredDifference {
  /** Registered, and not in the bundle: lost between the case and the bundle. */
  missing: TrialKey[]
  /** In the bundle, and never registered. */
  unregistered: TrialKey[]
}

/** The trials `registered` names and `trials` lacks, and the other way round, each in the order given. */
export function differenceFromRegistered(
  registered: readonly RegisteredTrials[],
  trials: readonly { benchmark: { id: string }; taskId: string; trial: number }[],
): RegisteredDifference {
  const expected = registered.flatMap((r) =>
    r.trials.map((trial): TrialKey => ({ benchmark: r.benchmark, taskId: r.taskId, trial })),
  )
  const present = new Set(trials.map((t) => trialKeyString(recordKey(t))))
  const wanted = new Set(expected.map(trialKeyString))
  return {
    missing: expected.filter((k) => !present.has(trialKeyString(k))),
    unregistered: trials.map(recordKey).filter((k) => !wanted.has(trialKeyString(k))),
  }
}

/** "task "a" trial 0 (benchmark "b"), … and 3 more". */
export function nameTrials(keys: readonly TrialKey[]): string {
  const named = keys.slice(0, MAX_NAMED).map(describeTrial).join(', ')
  return keys.length > MAX_NAMED ? `${named} and ${keys.length - MAX_NAMED} more` : named
}

/**
 * A bundle holds every trial its run registered as a Vitest case, and no other: a trial whose record never reached
 * the bundle (a case that crashed before it, an invalid record) is named instead of silently missing. Only bundles
 * that record the registered trials, and only complete runs and shards: an interrupted run lacks the trials it cut.
 */
export function checkRegisteredTrials(
  metadata: RunMetadata | undefined,
  scores: ScoresRecords | undefined,
  findings: FindingList,
): void {
  checkUnreported(metadata, scores, findings)
  if (!metadata?.registeredTrials || !scores || metadata.status === 'interrupted') return
  const { missing, unregistered } = differenceFromRegistered(metadata.registeredTrials, scores.trials)
  const registered = metadata.registeredTrials.reduce((n, r) => n + r.trials.length, 0)
  if (missing.length > 0) {
    findings.add(
      'registered-trials',
      METADATA_FILE,
      `the run registered ${registered} trial(s), and ${missing.length} of them are not in scores.json: ${nameTrials(missing)}`,
    )
  }
  if (unregistered.length > 0) {
    findings.add(
      'registered-trials',
      METADATA_FILE,
      `scores.json has ${unregistered.length} trial(s) the run never registered: ${nameTrials(unregistered)}`,
    )
  }
}

/**
 * Trials that never reported back (their worker died) make a run interrupted, never complete, and none of them can
 * be in scores.json: the bundle says what it lacks, and that must agree with what it holds.
 */
function checkUnreported(
  metadata: RunMetadata | undefined,
  scores: ScoresRecords | undefined,
  findings: FindingList,
): void {
  const unreported = metadata?.unreported
  if (!unreported || unreported.trials.length === 0) return
  const keys = differenceFromRegistered(unreported.trials, []).missing
  if (metadata.status !== 'interrupted') {
    findings.add(
      'registered-trials',
      METADATA_FILE,
      `status is ${metadata.status}, but ${keys.length} trial(s) never reported back: ${nameTrials(keys)}; ` +
        'a run whose trials did not all report is interrupted',
    )
  }
  if (!scores) return
  const absent = differenceFromRegistered(unreported.trials, scores.trials).missing.map(trialKeyString)
  const both = keys.filter((k) => !absent.includes(trialKeyString(k)))
  if (both.length > 0) {
    findings.add(
      'registered-trials',
      METADATA_FILE,
      `${both.length} trial(s) named as never reported back are in scores.json: ${nameTrials(both)}`,
    )
  }
}
