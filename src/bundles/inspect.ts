import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import {
  BUNDLE_FORMAT_VERSION,
  errorMessage,
  Manifest,
  RunMetadata,
  RecordedExchange,
  ScoresFile,
  ScoresFileV1,
  sha256,
  TraceEvent,
  type ScoresRecords,
} from '../core/index.ts'
import type { FileDigest } from './durable-file.ts'
import { describeIssues, FindingList, type Finding } from './findings.ts'
import {
  describeTrial,
  isSafeRelativePath,
  MANIFEST_FILE,
  METADATA_FILE,
  newerVersionMessage,
  REPLAY_COMMAND_FILE,
  RECORDINGS_FILE,
  REPORT_MD_FILE,
  requiredFiles,
  SCORES_FILE,
  TRACES_FILE,
} from './layout.ts'
import { readLines } from './lines.ts'
import { hashFile, listBundleFiles } from './manifest.ts'
import { checkRecords } from './record-checks.ts'
import { TraceChecker } from './trace-checks.ts'

/** Everything one pass over a bundle learns: the problems, and whatever parsed. */
export interface BundleInspection {
  dir: string
  /** False when `dir` is not a folder at all. */
  exists: boolean
  /** True when the bundle declares a format newer than this SDK reads; nothing else was checked then. */
  newerFormat: boolean
  findings: Finding[]
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
}

/**
 * Reads every file of a bundle exactly once, checking it against the manifest, its schema and the other files.
 * Both validateBundle and readBundle are views of this one pass, so they can never disagree about a bundle.
 */
export async function inspectBundle(dir: string, options: InspectOptions = {}): Promise<BundleInspection> {
  const findings = new FindingList()
  const result: BundleInspection = {
    dir,
    exists: true,
    newerFormat: false,
    findings: [],
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
    findings.add('.', `${dir} is not a bundle folder (it does not exist or is not a directory)`)
    return { ...done(), exists: false }
  }
  const listing = await listBundleFiles(dir)
  const onDisk = new Set(listing.files)
  for (const other of listing.others) findings.add(other, 'is not a regular file')
  const digests = new Map<string, FileDigest>()

  if (!onDisk.has(MANIFEST_FILE)) {
    findings.add(
      MANIFEST_FILE,
      'is missing: the bundle was never sealed (the writer writes the manifest last)',
    )
  } else {
    const raw = await readJsonFile(dir, MANIFEST_FILE, findings)
    const version = declaredVersion(raw?.value, 'formatVersion')
    if (version !== undefined && version > BUNDLE_FORMAT_VERSION) {
      findings.add(MANIFEST_FILE, newerVersionMessage('formatVersion', version))
      return { ...done(), newerFormat: true }
    }
    if (raw) result.manifest = parseWith(Manifest, raw.value, MANIFEST_FILE, findings)
  }

  for (const [file, field] of [
    [METADATA_FILE, 'schemaVersion'],
    [SCORES_FILE, 'schemaVersion'],
  ] as const) {
    if (!onDisk.has(file)) continue
    const raw = await readJsonFile(dir, file, findings)
    if (!raw) continue
    digests.set(file, raw.digest)
    const version = declaredVersion(raw.value, field)
    if (version !== undefined && version > BUNDLE_FORMAT_VERSION) {
      findings.add(file, newerVersionMessage(field, version))
      return { ...done(), newerFormat: true }
    }
    if (file === METADATA_FILE) result.metadata = parseWith(RunMetadata, raw.value, file, findings)
    else result.scores = parseScores(raw.value, findings)
  }

  const missing = new Set<string>()
  for (const file of requiredFiles(result.manifest?.formatVersion ?? BUNDLE_FORMAT_VERSION)) {
    if (onDisk.has(file)) continue
    missing.add(file)
    if (file !== MANIFEST_FILE) findings.add(file, 'is missing (every bundle has one)')
  }

  const runId = result.metadata?.runId ?? result.scores?.runId ?? result.manifest?.runId
  if (onDisk.has(TRACES_FILE)) {
    const traces = await readTraces(dir, runId, result, findings)
    digests.set(TRACES_FILE, traces)
  }
  for (const file of [REPORT_MD_FILE, REPLAY_COMMAND_FILE]) {
    if (!onDisk.has(file)) continue
    const bytes = await readFile(join(dir, file))
    digests.set(file, { sha256: sha256(bytes), size: bytes.length })
    const text = bytes.toString('utf8')
    if (file === REPORT_MD_FILE) result.report = text
    else result.replayCommand = text
    if (text.trim() === '') findings.add(file, 'is empty')
  }
  if (onDisk.has(RECORDINGS_FILE)) {
    const bytes = await readFile(join(dir, RECORDINGS_FILE))
    digests.set(RECORDINGS_FILE, { sha256: sha256(bytes), size: bytes.length })
    checkRecordings(bytes.toString('utf8'), result.scores, findings)
  }
  for (const file of listing.files) {
    if (file !== MANIFEST_FILE && !digests.has(file)) digests.set(file, await hashFile(join(dir, file)))
  }

  if (result.manifest) checkAgainstManifest(result.manifest, onDisk, digests, missing, findings)
  checkRunIds(result, findings)
  checkRecords(result.metadata, result.scores, findings)
  return done()
}

/** Each line a recorded exchange of a trial the scores know: a bundle carries only what its trials were answered with. */
function checkRecordings(text: string, scores: ScoresRecords | undefined, findings: FindingList): void {
  const trials = new Set(scores?.trials.map((t) => `${t.taskId}\u0000${t.trial}`))
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (const [index, line] of lines.entries()) {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (e) {
      findings.add(RECORDINGS_FILE, `line ${index + 1}: not valid JSON (${errorMessage(e)})`)
      continue
    }
    const parsed = RecordedExchange.safeParse(value)
    if (!parsed.success) {
      findings.add(RECORDINGS_FILE, `line ${index + 1}: ${describeIssues(parsed.error.issues)}`)
      continue
    }
    const { taskId, trial } = parsed.data
    if (scores && !trials.has(`${taskId}\u0000${trial}`)) {
      findings.add(
        RECORDINGS_FILE,
        `line ${index + 1}: a recording of task ${JSON.stringify(taskId)} trial ${trial}, which scores.json does not have`,
      )
    }
  }
}

async function readTraces(
  dir: string,
  runId: string | undefined,
  result: BundleInspection,
  findings: FindingList,
): Promise<FileDigest> {
  const hash = createHash('sha256')
  let size = 0
  const checker = new TraceChecker(runId, findings)
  const invalid = { key: 'traces:schema', label: 'invalid lines' }
  let line = 0
  const chunks = (chunk: Buffer) => {
    hash.update(chunk)
    size += chunk.length
  }
  for await (const text of readLines(join(dir, TRACES_FILE), chunks)) {
    line += 1
    if (text.trim() === '') {
      findings.add(TRACES_FILE, `line ${line}: empty line`, invalid)
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (e) {
      findings.add(TRACES_FILE, `line ${line}: not valid JSON (${errorMessage(e)})`, invalid)
      continue
    }
    const parsed = TraceEvent.safeParse(value)
    if (!parsed.success) {
      findings.add(TRACES_FILE, `line ${line}: ${describeIssues(parsed.error.issues)}`, invalid)
      continue
    }
    const event = parsed.data as TraceEvent
    checker.add(event, `line ${line}`)
    result.events?.push(event)
  }
  checker.finish(result.scores?.trials)
  result.eventCount = checker.eventCount
  return { sha256: hash.digest('hex'), size }
}

function checkAgainstManifest(
  manifest: Manifest,
  onDisk: ReadonlySet<string>,
  digests: ReadonlyMap<string, FileDigest>,
  alreadyMissing: ReadonlySet<string>,
  findings: FindingList,
): void {
  const listed = new Set<string>()
  for (const entry of manifest.files) {
    if (!isSafeRelativePath(entry.path)) {
      findings.add(
        MANIFEST_FILE,
        `lists ${JSON.stringify(entry.path)}, which is not a path inside the bundle`,
      )
      continue
    }
    if (entry.path === MANIFEST_FILE) {
      findings.add(MANIFEST_FILE, 'lists itself (it can only list the other files)')
      continue
    }
    if (listed.has(entry.path)) {
      findings.add(MANIFEST_FILE, `lists ${entry.path} more than once`)
      continue
    }
    listed.add(entry.path)
    const actual = digests.get(entry.path)
    if (!onDisk.has(entry.path) || !actual) {
      if (!alreadyMissing.has(entry.path)) findings.add(entry.path, 'is listed in manifest.json but missing')
    } else if (actual.size !== entry.size) {
      findings.add(
        entry.path,
        `size is ${actual.size} bytes but manifest.json says ${entry.size} (changed after the bundle was sealed)`,
      )
    } else if (actual.sha256 !== entry.sha256) {
      findings.add(entry.path, 'sha256 does not match manifest.json (changed after the bundle was sealed)')
    }
  }
  for (const file of onDisk) {
    if (file !== MANIFEST_FILE && !listed.has(file)) findings.add(file, 'is not listed in manifest.json')
  }
}

function checkRunIds(result: BundleInspection, findings: FindingList): void {
  const { manifest, metadata, scores } = result
  const reference = metadata ?? (scores?.runId === undefined ? undefined : { runId: scores.runId })
  if (manifest && reference && manifest.runId !== reference.runId) {
    const source = metadata ? METADATA_FILE : SCORES_FILE
    findings.add(
      MANIFEST_FILE,
      `runId ${JSON.stringify(manifest.runId)} does not match ${source}'s ${JSON.stringify(reference.runId)}`,
    )
  }
}

interface JsonFile {
  value: unknown
  digest: FileDigest
}

async function readJsonFile(dir: string, file: string, findings: FindingList): Promise<JsonFile | undefined> {
  const bytes = await readFile(join(dir, file))
  const digest = { sha256: sha256(bytes), size: bytes.length }
  try {
    return { value: JSON.parse(bytes.toString('utf8')) as unknown, digest }
  } catch (e) {
    findings.add(file, `is not valid JSON (${errorMessage(e)})`)
    return file === MANIFEST_FILE ? undefined : { value: undefined, digest }
  }
}

function parseWith<T>(
  schema: {
    safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: IssueList } }
  },
  value: unknown,
  file: string,
  findings: FindingList,
): T | undefined {
  if (value === undefined) return undefined
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  findings.add(file, `does not match its schema: ${describeIssues(parsed.error.issues)}`)
  return undefined
}

type IssueList = Parameters<typeof describeIssues>[0]

/**
 * scores.json of any format this SDK reads. Format 1 carried the run id (checked here against its trials) and
 * counts-only statistics, which readers recompute: its summary comes back null.
 */
function parseScores(value: unknown, findings: FindingList): ScoresRecords | undefined {
  if (declaredVersion(value, 'schemaVersion') === 1) {
    const v1 = parseWith(ScoresFileV1, value, SCORES_FILE, findings)
    if (!v1) return undefined
    v1.trials.forEach((trial, index) => {
      if (trial.runId !== v1.runId) {
        findings.add(
          SCORES_FILE,
          `trials[${index}] (${describeTrial(trial)}) has runId ${JSON.stringify(trial.runId)}, not the run's ${JSON.stringify(v1.runId)}`,
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
  return parseWith(ScoresFile, value, SCORES_FILE, findings)
}

function declaredVersion(value: unknown, field: string): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const version = (value as Record<string, unknown>)[field]
  return typeof version === 'number' ? version : undefined
}
