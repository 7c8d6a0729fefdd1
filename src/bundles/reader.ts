import {
  AgentEvalOpsError,
  type Manifest,
  type RunMetadata,
  type ScoresRecords,
  type TraceEvent,
} from '../core/index.ts'
import { formatFindings, type Finding } from './findings.ts'
import { inspectBundle } from './inspect.ts'

/** A bundle that passed every check. */
export interface Bundle {
  dir: string
  manifest: Manifest
  metadata: RunMetadata
  /** `summary` is null for a format-1 bundle (recompute it from `trials` with a Scorer). */
  scores: ScoresRecords
  /** In file order; an event of format 1 or 2, which did not name its benchmark, has its trial's. */
  events: TraceEvent[]
  report: string
  replayCommand: string
}

/** Whatever of a damaged bundle could be read, and what is wrong with the rest. */
export interface RecoveredBundle {
  dir: string
  manifest: Manifest | undefined
  metadata: RunMetadata | undefined
  scores: ScoresRecords | undefined
  /** Every line of traces.jsonl that parsed as an event, even if it breaks a cross-file rule. */
  events: TraceEvent[]
  report: string | undefined
  replayCommand: string | undefined
  problems: Finding[]
}

export type ReadMode = 'strict' | 'recover'

/**
 * strict: the bundle must pass validateBundle, or this throws BUNDLE_INVALID listing the problems.
 * recover: returns what parses plus the problems, for inspecting an interrupted or damaged run.
 * Either way a missing folder is BUNDLE_NOT_FOUND, and a bundle from a newer SDK is refused: guessing at a format
 * we do not know would misreport it.
 */
export async function readBundle(dir: string, options?: { mode?: 'strict' }): Promise<Bundle>
export async function readBundle(dir: string, options: { mode: 'recover' }): Promise<RecoveredBundle>
export async function readBundle(
  dir: string,
  options: { mode?: ReadMode } = {},
): Promise<Bundle | RecoveredBundle> {
  const found = await inspectBundle(dir, { collectEvents: true })
  if (!found.exists) {
    throw new AgentEvalOpsError('BUNDLE_NOT_FOUND', `no bundle folder at ${dir}.`, {
      hint: 'Pass the path of a run folder, e.g. runs/<runId>.',
    })
  }
  if (found.newerFormat) {
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `cannot read the bundle at ${dir}: ${formatFindings(found.findings)}`,
    )
  }
  const events = found.events ?? []
  if (options.mode === 'recover') {
    const { manifest, metadata, scores, report, replayCommand } = found
    return { dir, manifest, metadata, scores, events, report, replayCommand, problems: found.findings }
  }
  const { manifest, metadata, scores, report, replayCommand } = found
  if (
    found.findings.length > 0 ||
    !manifest ||
    !metadata ||
    !scores ||
    report === undefined ||
    !replayCommand
  ) {
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `the bundle at ${dir} is invalid (read it with { mode: 'recover' } to get what is intact):\n` +
        formatFindings(found.findings),
    )
  }
  return { dir, manifest, metadata, scores, events, report, replayCommand }
}
