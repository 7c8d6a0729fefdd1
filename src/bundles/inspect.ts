import { stat } from 'node:fs/promises'
import {
  BUNDLE_FORMAT_VERSION,
  Manifest,
  RunMetadata,
  ScoresFile,
  ScoresFileV1,
  ScoresFileV2,
  type ScoresRecords,
  type TraceEvent,
} from '../core/index.ts'
import { BundleFiles, reportListing } from './bundle-files.ts'
import type { CheckName } from './checks.ts'
import { FindingList, quote, type Finding } from './findings.ts'
import { infiniteMessage, readRecordings, readTraces } from './jsonl-checks.ts'
import { readSpans } from './span-checks.ts'
import {
  describeTrial,
  MANIFEST_FILE,
  METADATA_FILE,
  newerVersionMessage,
  recordKey,
  REPLAY_COMMAND_FILE,
  REPORT_MD_FILE,
  requiredFiles,
  SCORES_FILE,
} from './layout.ts'
import { checkAgainstManifest } from './manifest-checks.ts'
import { listBundleFiles } from './manifest.ts'
import { checkRecords } from './record-checks.ts'
import { checkOutcomes } from './outcome-checks.ts'
import { checkRegisteredTrials } from './registered-checks.ts'
import { checkSummary, type RecomputeSummary } from './summary-checks.ts'
import { checkSchema, nonFinitePath, parseJsonText, type Schema } from './untrusted-json.ts'

/** Everything one pass over a bundle learns: the problems, and whatever parsed. */
export interface BundleInspection {
  dir: string
  /** False when `dir` is not a folder at all. */
  exists: boolean
  /** True when the bundle declares a format newer than this SDK reads; nothing else was checked then. */
  newerFormat: boolean
  findings: Finding[]
  /** What was left unchecked and why (e.g. a summary of another statistics method): said, but no finding. */
  notes: string[]
  manifest: Manifest | undefined
  metadata: RunMetadata | undefined
  scores: ScoresRecords | undefined
  /** The events that parsed, in file order; only collected when asked for. */
  events: TraceEvent[] | undefined
  /** Lines of traces.jsonl that parsed as events. */
  eventCount: number
  report: string | undefined
  replayCommand: string | undefined
}

export interface InspectOptions {
  /** Keep the parsed events (a reader wants them; a validator only needs to stream through them). */
  collectEvents?: boolean
  /**
   * The scorer that wrote scores.json's summary, to check that summary against its trials (check
   * `summary-matches`). Handed in by the caller because bundles may not import scorers (DESIGN §2); without it the
   * summary is not recomputed.
   */
  recomputeSummary?: RecomputeSummary
}

/**
 * Reads every file of a bundle exactly once, checking it against the manifest, its schema and the other files.
 * Both validateBundle and readBundle are views of this one pass, so they can never disagree about a bundle.
 * Whatever the folder holds, the answer is findings: files are read within size limits, JSONL streamed, nothing
 * followed through a symlink, and JSON too deep to check safely is refused.
 */
export async function inspectBundle(dir: string, options: InspectOptions = {}): Promise<BundleInspection> {
  const findings = new FindingList()
  const result: BundleInspection = {
    dir,
    exists: true,
    newerFormat: false,
    findings: [],
    notes: [],
    manifest: undefined,
    metadata: undefined,
    scores: undefined,
    events: options.collectEvents ? [] : undefined,
    eventCount: 0,
    report: undefined,
    replayCommand: undefined,
  }
  const done = () => ({ ...result, findings: findings.toArray() })

  const info = await stat(dir).catch(() => undefined)
  if (!info?.isDirectory()) {
    findings.add(
      'bundle-folder',
      '.',
      `${dir} is not a bundle folder (it does not exist or is not a directory)`,
    )
    return { ...done(), exists: false }
  }
  const listing = await listBundleFiles(dir)
  reportListing(listing, findings)
  const files = new BundleFiles(dir, listing, findings)
  files.prefetch([MANIFEST_FILE, METADATA_FILE, SCORES_FILE, REPORT_MD_FILE, REPLAY_COMMAND_FILE])

  if (!files.has(MANIFEST_FILE)) {
    if (!files.reported(MANIFEST_FILE)) {
      findings.add(
        'files-present',
        MANIFEST_FILE,
        'is missing: the bundle was never sealed (the writer writes the manifest last)',
      )
    }
  } else {
    const value = await readJson(files, MANIFEST_FILE, findings)
    const version = declaredVersion(value, 'formatVersion')
    if (version !== undefined && version > BUNDLE_FORMAT_VERSION) {
      findings.add('format-version', MANIFEST_FILE, newerVersionMessage('formatVersion', version))
      return { ...done(), newerFormat: true }
    }
    result.manifest = parseWith(Manifest, value, MANIFEST_FILE, 'manifest-schema', findings)
  }

  for (const [file, field] of [
    [METADATA_FILE, 'schemaVersion'],
    [SCORES_FILE, 'schemaVersion'],
  ] as const) {
    const value = await readJson(files, file, findings)
    const version = declaredVersion(value, field)
    if (version !== undefined && version > BUNDLE_FORMAT_VERSION) {
      findings.add('format-version', file, newerVersionMessage(field, version))
      return { ...done(), newerFormat: true }
    }
    if (file === METADATA_FILE)
      result.metadata = parseWith(RunMetadata, value, file, 'metadata-schema', findings)
    else result.scores = parseScores(value, findings)
  }

  const missing = new Set<string>()
  for (const file of requiredFiles(result.manifest?.formatVersion ?? BUNDLE_FORMAT_VERSION)) {
    if (files.has(file) || files.reported(file)) continue
    missing.add(file)
    if (file !== MANIFEST_FILE) findings.add('files-present', file, 'is missing (every bundle has one)')
  }

  const runId = result.metadata?.runId ?? result.scores?.runId ?? result.manifest?.runId
  const formatVersion =
    result.manifest?.formatVersion ??
    result.metadata?.schemaVersion ??
    result.scores?.schemaVersion ??
    BUNDLE_FORMAT_VERSION
  const traces = await readTraces(files, runId, result.scores, formatVersion, findings, result.events)
  result.eventCount = traces.eventCount
  for (const file of [REPORT_MD_FILE, REPLAY_COMMAND_FILE]) {
    const text = await files.readText(file)
    if (text === undefined) continue
    if (file === REPORT_MD_FILE) result.report = text
    else result.replayCommand = text
    if (text.trim() === '') findings.add('text-not-empty', file, 'is empty')
  }
  await readRecordings(files, result.scores, findings)
  await readSpans(files, result.scores, findings)
  await files.hashUnread()

  if (result.manifest) checkAgainstManifest(result.manifest, files, missing, findings)
  checkRunIds(result, findings)
  checkRecords(result.metadata, result.scores, findings)
  checkRegisteredTrials(result.metadata, result.scores, findings)
  checkOutcomes(result.scores, findings)
  if (options.recomputeSummary) checkSummary(result.scores, findings, options.recomputeSummary, result.notes)
  return done()
}

function checkRunIds(result: BundleInspection, findings: FindingList): void {
  const { manifest, metadata, scores } = result
  const reference = metadata ?? (scores?.runId === undefined ? undefined : { runId: scores.runId })
  if (manifest && reference && manifest.runId !== reference.runId) {
    const source = metadata ? METADATA_FILE : SCORES_FILE
    findings.add(
      'run-ids',
      MANIFEST_FILE,
      `runId ${quote(manifest.runId)} does not match ${source}'s ${quote(reference.runId)}`,
    )
  }
}

/** The parsed content of a JSON file; undefined when it is absent, unreadable or not JSON (reported). */
async function readJson(files: BundleFiles, file: string, findings: FindingList): Promise<unknown> {
  const text = await files.readText(file)
  if (text === undefined) return undefined
  const json = parseJsonText(text)
  if (json.ok) {
    const infinite = nonFinitePath(json.value)
    if (infinite !== undefined) findings.add('finite-numbers', file, infiniteMessage(infinite))
    return json.value
  }
  findings.add('json-syntax', file, `is ${json.problem}`)
  return undefined
}

function parseWith<T>(
  schema: Schema<T>,
  value: unknown,
  file: string,
  check: CheckName,
  findings: FindingList,
): T | undefined {
  if (value === undefined) return undefined
  const parsed = checkSchema(schema, value)
  if (parsed.ok) return parsed.data
  findings.add(check, file, `does not match its schema: ${parsed.problem}`)
  return undefined
}

/**
 * scores.json of any format this SDK reads. Format 1 carried the run id (checked here against its trials) and
 * counts-only statistics, which readers recompute: its summary comes back null. Format 2 is format 3's.
 */
function parseScores(value: unknown, findings: FindingList): ScoresRecords | undefined {
  const version = declaredVersion(value, 'schemaVersion')
  if (version === 2) return parseWith(ScoresFileV2, value, SCORES_FILE, 'scores-schema', findings)
  if (version === 1) {
    const v1 = parseWith(ScoresFileV1, value, SCORES_FILE, 'scores-schema', findings)
    if (!v1) return undefined
    v1.trials.forEach((trial, index) => {
      if (trial.runId !== v1.runId) {
        findings.add(
          'run-ids',
          SCORES_FILE,
          `trials[${index}] (${describeTrial(recordKey(trial))}) has runId ${quote(trial.runId)}, not the run's ${quote(v1.runId)}`,
          { key: 'scores:trial-runId', label: 'trials with a foreign runId' },
        )
      }
    })
    return {
      schemaVersion: 1,
      runId: v1.runId,
      trials: v1.trials.map(({ runId: _runId, ...trial }) => trial),
      summary: null,
    }
  }
  return parseWith(ScoresFile, value, SCORES_FILE, 'scores-schema', findings)
}

function declaredVersion(value: unknown, field: string): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const version = (value as Record<string, unknown>)[field]
  return typeof version === 'number' ? version : undefined
}
