import { randomBytes } from 'node:crypto'
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import {
  AgentEvalOpsError,
  BUNDLE_FORMAT_VERSION,
  errorMessage,
  isAgentEvalOpsError,
  Manifest,
  RunMetadata,
  ScoresFile,
  TraceEvent,
  type RunSummary,
  type TrialRecord,
} from '../core/index.ts'
import { isProcessAlive } from '../engine/index.ts'
import {
  DurableFileWriter,
  fsyncDir,
  writeDurableChunks,
  writeDurableFile,
  type FileDigest,
} from './durable-file.ts'
import { describeIssues, FindingList, formatFindings } from './findings.ts'
import {
  assertSafeRunId,
  isSafeRelativePath,
  MANIFEST_FILE,
  METADATA_FILE,
  recordKey,
  REPLAY_COMMAND_FILE,
  REPORT_MD_FILE,
  RESERVED_FILES,
  SCORES_FILE,
  TRACES_FILE,
} from './layout.ts'
import { toBundleJson } from './manifest.ts'
import { checkRecordCounts, checkRecords, foreignRunId, StreamedTrialKeys } from './record-checks.ts'
import { TraceChecker } from './trace-checks.ts'
import { traceBatches, type TraceSource } from './trace-source.ts'
import { checkSchema, parseJsonText } from './untrusted-json.ts'

/** A file the bundle carries beyond the standard ones (e.g. `artifacts/…`): given as content or copied from disk. */
export type ExtraFile =
  | { path: string; data: string | Uint8Array }
  | { path: string; sourcePath: string }
  /** Written and fsynced by the caller, its digest computed as it wrote: moved in, not copied. */
  | ({ path: string } & PrewrittenFile)

export type WriteBundleInput = {
  /** The bundle lands in `runsDir/<runId>/`. */
  runsDir: string
  metadata: RunMetadata
  trials: readonly TrialRecord[]
  summary: RunSummary
  /** Rendered reports by file name; `report.md` is required. */
  reports: Readonly<Record<string, string>>
  replayCommand: string
  extraFiles?: readonly ExtraFile[]
  /**
   * Files made from the run's checked events (spans.jsonl, report.html), asked for once the traces are written. The
   * events are held in memory for it, so a caller that needs none leaves this out.
   */
  derivedFiles?: (events: readonly TraceEvent[]) => Promise<readonly ExtraFile[]> | readonly ExtraFile[]
  /** The manifest's createdAt; defaults to now. */
  createdAt?: string
} & TraceSource

type ManifestEntry = Manifest['files'][number]

/**
 * Writes a result bundle atomically: everything goes into a staging folder beside the final one, is fsynced, the
 * manifest is written last, and only then is the folder renamed into place. A reader therefore sees either no
 * bundle or a complete one, and an existing bundle is never overwritten. Input is validated first, and the trace
 * stream is checked while it is copied, so a bug upstream fails here instead of producing an invalid bundle.
 * Returns the bundle's path.
 */
export async function writeBundle(input: WriteBundleInput): Promise<string> {
  const { metadata, scores } = validateRecords(input)
  checkNamedFiles(input)
  return assemble(input, metadata, async (put) => {
    // Traces first: they are the likeliest to be rejected, and the cheapest moment to give up is before the rest.
    const events: TraceEvent[] | undefined = input.derivedFiles ? [] : undefined
    await put(TRACES_FILE, (target) => writeTraces(target, input, metadata.runId, scores, events))
    await put(METADATA_FILE, (target) => writeDurableFile(target, toBundleJson(metadata)))
    await put(SCORES_FILE, (target) => writeDurableFile(target, toBundleJson(scores)))
    return events && input.derivedFiles ? await input.derivedFiles(events) : []
  })
}

/** A bundle file its caller wrote already, while the run went on, with the digest it computed as it wrote. */
export interface PrewrittenFile {
  /** Moved into the bundle (renamed: it must be on the runs folder's filesystem, or it is copied). */
  sourcePath: string
  digest: FileDigest
}

/** What a run that grew its traces and scores as it went hands over to have them sealed into a bundle. */
export interface SealBundleInput {
  runsDir: string
  metadata: RunMetadata
  /**
   * The trials scores.json lists, by run id and key: held against the metadata (run ids, trial count, duplicates)
   * as writeBundle holds its records. Or the same checks made as the trials streamed into scores.json.
   */
  trials: readonly SealedTrialKey[] | StreamedTrialKeys
  /**
   * traces.jsonl in bundle order, checked by its writer as the events streamed (TraceChecker): one run id, each
   * trial's events together, steps from 0, one terminal event, events for every trial of `trials` and no other.
   */
  traces: PrewrittenFile
  /** scores.json as ScoresJsonWriter wrote it. */
  scores: PrewrittenFile
  reports: Readonly<Record<string, string>>
  replayCommand: string
  extraFiles?: readonly ExtraFile[]
  createdAt?: string
}

/**
 * writeBundle for a run whose big files grew during the run: only metadata, the small files and the manifest are
 * written here, the traces and scores are moved in. The same guarantees: input checked first, everything fsynced,
 * manifest last, one rename into place, an existing bundle never overwritten.
 */
export async function sealBundle(input: SealBundleInput): Promise<string> {
  const metadata = validateSealInput(input)
  checkNamedFiles(input)
  return assemble(input, metadata, async (put) => {
    await put(TRACES_FILE, (target) => movePrewritten(input.traces, target))
    await put(METADATA_FILE, (target) => writeDurableFile(target, toBundleJson(metadata)))
    await put(SCORES_FILE, (target) => movePrewritten(input.scores, target))
    return []
  })
}

type SealedTrialKey = { runId: string; benchmark: { id: string }; taskId: string; trial: number }

type Put = (path: string, write: (target: string) => Promise<FileDigest>) => Promise<void>

interface AssembleInput {
  runsDir: string
  reports: Readonly<Record<string, string>>
  replayCommand: string
  extraFiles?: readonly ExtraFile[] | undefined
  createdAt?: string | undefined
}

/**
 * The atomic part both writers share: a staging folder beside the final one, `writeMain` first (it returns the
 * files derived from what it wrote), then the replay command, reports and extra files, the manifest last, fsyncs,
 * one rename.
 */
async function assemble(
  input: AssembleInput,
  metadata: RunMetadata,
  writeMain: (put: Put) => Promise<readonly ExtraFile[]>,
): Promise<string> {
  const finalDir = join(input.runsDir, metadata.runId)
  await mkdir(input.runsDir, { recursive: true }).catch((e: unknown) => {
    throw writeFailure(e, input.runsDir, metadata.runId)
  })
  await refuseExisting(finalDir)
  await removeDeadStagings(input.runsDir)

  const staging = join(input.runsDir, stagingName(metadata.runId))
  await mkdir(staging).catch((e: unknown) => {
    throw writeFailure(e, input.runsDir, metadata.runId)
  })
  try {
    const entries: ManifestEntry[] = []
    const dirs = new Set<string>([staging])
    const put: Put = async (path, write) => {
      const target = join(staging, path)
      if (!dirs.has(dirname(target))) {
        await mkdir(dirname(target), { recursive: true })
        // Every new level needs its own fsync for the entries below it to be durable.
        for (let dir = dirname(target); !dirs.has(dir); dir = dirname(dir)) dirs.add(dir)
      }
      entries.push({ path, ...(await write(target)) })
    }

    const derived = await writeMain(put)
    await put(REPLAY_COMMAND_FILE, (target) => writeDurableFile(target, withNewline(input.replayCommand)))
    for (const [path, content] of Object.entries(input.reports)) {
      await put(path, (target) => writeDurableFile(target, content))
    }
    checkNamedFiles(input, derived)
    for (const file of [...(input.extraFiles ?? []), ...derived]) {
      await put(file.path, (target) =>
        'data' in file
          ? writeDurableFile(target, file.data)
          : 'digest' in file
            ? movePrewritten(file, target)
            : copyDurable(file.sourcePath, target),
      )
    }

    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    const manifest = Manifest.parse({
      formatVersion: BUNDLE_FORMAT_VERSION,
      runId: metadata.runId,
      createdAt: input.createdAt ?? new Date().toISOString(),
      files: entries,
    })
    await writeDurableFile(join(staging, MANIFEST_FILE), toBundleJson(manifest))
    for (const dir of dirs) await fsyncDir(dir)

    await publish(staging, finalDir)
    await fsyncDir(input.runsDir)
    return finalDir
  } catch (e) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined)
    throw writeFailure(e, input.runsDir, metadata.runId)
  }
}

/*
 * The writer's own staging folder, `.staging-<runId>-<host>-<pid>-<random>`: a process killed mid-write leaves it
 * behind, and the next write of a bundle into the same runs folder on the same host removes it once its process is
 * gone. (A run's trial staging lives in `.staging/`, a folder, and is `recover`'s, not this.)
 */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8)
const WRITER_STAGING = /^\.staging-.+-([0-9a-f]{8})-(\d+)-[0-9a-f]{12}$/

function stagingName(runId: string): string {
  return `.staging-${runId}-${HOST_TAG}-${process.pid}-${randomBytes(6).toString('hex')}`
}

async function removeDeadStagings(runsDir: string): Promise<void> {
  for (const name of await readdir(runsDir).catch(() => [] as string[])) {
    const match = WRITER_STAGING.exec(name)
    if (!match || match[1] !== HOST_TAG || isProcessAlive(Number(match[2]))) continue
    await rm(join(runsDir, name), { recursive: true, force: true }).catch(() => undefined)
  }
}

/** A failing disk (full, read-only, no permission) is the user's to fix: one line naming it, not a stack trace. */
function writeFailure(e: unknown, runsDir: string, runId: string): unknown {
  if (isAgentEvalOpsError(e) || typeof (e as NodeJS.ErrnoException | undefined)?.code !== 'string') return e
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `cannot write the bundle of run ${runId} in ${runsDir}: ${errorMessage(e)}; no bundle was written.`,
    {
      hint: 'Free disk space or make the folder writable (agentevalops doctor checks it), then try again.',
      cause: e,
    },
  )
}

function validateRecords(input: WriteBundleInput): { metadata: RunMetadata; scores: ScoresFile } {
  const { findings, metadata } = checkRun(input)
  // The run id lives in metadata.json only, and phase times in spans.jsonl, so that equal runs write equal scores.json.
  const scores = ScoresFile.safeParse({
    schemaVersion: BUNDLE_FORMAT_VERSION,
    trials: input.trials.map(({ runId: _runId, timing: _timing, ...trial }) => trial),
    summary: input.summary,
  })
  if (!scores.success) findings.add('scores-schema', SCORES_FILE, describeIssues(scores.error.issues, 10))
  checkRecords(metadata.data, scores.data, findings)
  if (findings.size > 0 || !metadata.success || !scores.success) throw invalidInput(findings)
  return { metadata: metadata.data, scores: scores.data }
}

/** What both writers check first: a safe run id, the metadata's schema, and every trial of this run. */
function checkRun(input: { metadata: RunMetadata; trials: readonly SealedTrialKey[] }) {
  return checkMetadata(input.metadata, new FindingList(), input.trials)
}

/** A safe run id and the metadata's schema, and each trial's run id when `trials` are given. */
function checkMetadata(input: RunMetadata, findings: FindingList, trials: readonly SealedTrialKey[] = []) {
  assertSafeRunId(input.runId)
  const metadata = RunMetadata.safeParse(input)
  if (!metadata.success)
    findings.add('metadata-schema', METADATA_FILE, describeIssues(metadata.error.issues, 10))
  checkRunIds(trials, input.runId, findings)
  return { findings, metadata }
}

function validateSealInput(input: SealBundleInput): RunMetadata {
  const { trials } = input
  const streamed = trials instanceof StreamedTrialKeys
  const { findings, metadata } = streamed
    ? checkMetadata(input.metadata, trials.findings)
    : checkRun({ metadata: input.metadata, trials })
  const header = { schemaVersion: BUNDLE_FORMAT_VERSION }
  if (streamed) {
    if (metadata.success) checkRecordCounts(metadata.data, { ...header, count: trials.count }, findings)
  } else checkRecords(metadata.data, { ...header, trials }, findings)
  if (findings.size > 0 || !metadata.success) throw invalidInput(findings)
  return metadata.data
}

function checkRunIds(trials: readonly SealedTrialKey[], runId: string, findings: FindingList): void {
  trials.forEach((trial, index) => {
    if (trial.runId !== runId) foreignRunId(trial, index, runId, findings)
  })
}

/** Reports and extra files, checked to stay inside the bundle and not to shadow a file the writer owns. */
function checkNamedFiles(
  input: Pick<AssembleInput, 'reports' | 'extraFiles'>,
  derived: readonly ExtraFile[] = [],
): void {
  const findings = new FindingList()
  const names = [
    ...Object.keys(input.reports),
    ...[...(input.extraFiles ?? []), ...derived].map((f) => f.path),
  ]
  const seen = new Set<string>()
  for (const name of names) {
    if (!isSafeRelativePath(name))
      findings.add('safe-paths', name, 'is not a relative path inside the bundle')
    else if (RESERVED_FILES.includes(name))
      findings.add('manifest-entries', name, 'is written by the bundle writer itself')
    else if (seen.has(name)) findings.add('manifest-entries', name, 'is given more than once')
    seen.add(name)
  }
  if (!Object.hasOwn(input.reports, REPORT_MD_FILE))
    findings.add('files-present', REPORT_MD_FILE, 'is required in reports')
  if (findings.size > 0) throw invalidInput(findings)
}

async function writeTraces(
  target: string,
  source: TraceSource,
  runId: string,
  scores: ScoresFile,
  collect: TraceEvent[] | undefined,
): Promise<FileDigest> {
  const findings = new FindingList()
  const checker = new TraceChecker(runId, findings, scores.trials.map(recordKey))
  const invalid = { key: 'schema', label: 'invalid events' }
  const writer = await DurableFileWriter.create(target)
  try {
    for await (const batch of traceBatches(source)) {
      const out: string[] = []
      for (const item of batch) {
        let value: unknown
        if ('text' in item) {
          // Blank lines carry nothing: a trace file ends with a newline, and an empty trial file is not an error here.
          if (item.text.trim() === '') continue
          // The reader refuses what it cannot check safely (e.g. JSON nested too deep), so the writer does too.
          const json = parseJsonText(item.text)
          if (!json.ok) {
            findings.add('trace-schema', TRACES_FILE, `${item.where}: ${json.problem}`, invalid)
            continue
          }
          value = json.value
        } else {
          value = item.value
        }
        const parsed = checkSchema(TraceEvent, value)
        if (!parsed.ok) {
          findings.add('trace-schema', TRACES_FILE, `${item.where}: ${parsed.problem}`, invalid)
          continue
        }
        const event = parsed.data as TraceEvent
        checker.add(event, item.where)
        collect?.push(event)
        out.push(`${JSON.stringify(event)}\n`)
      }
      // Keep checking after the first problem so the error lists them all, but stop writing a doomed file.
      if (findings.size === 0 && out.length > 0) await writer.write(out.join(''))
    }
    checker.finish()
  } catch (e) {
    await writer.abandon()
    throw e
  }
  if (findings.size > 0) {
    await writer.abandon()
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `the run's traces are invalid, so no bundle was written (the source trace files are untouched):\n` +
        formatFindings(findings.toArray()),
    )
  }
  return writer.close()
}

function copyDurable(source: string, target: string): Promise<FileDigest> {
  return writeDurableChunks(target, readChunks(source))
}

/** The file's chunks, its stream opened only once they are asked for (an unread stream's error would go unheard). */
async function* readChunks(path: string): AsyncGenerator<Buffer> {
  yield* createReadStream(path) as AsyncIterable<Buffer>
}

/**
 * A file written (and fsynced) by the caller, moved into the bundle's staging folder: renamed where it can be, copied
 * across filesystems. Its digest is the caller's, computed as it wrote.
 */
async function movePrewritten(file: PrewrittenFile, target: string): Promise<FileDigest> {
  try {
    await rename(file.sourcePath, target)
    return file.digest
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e
  }
  const copied = await copyDurable(file.sourcePath, target)
  if (copied.sha256 !== file.digest.sha256 || copied.size !== file.digest.size)
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `${file.sourcePath} changed after it was written (its digest differs); no bundle was written.`,
    )
  return copied
}

async function refuseExisting(finalDir: string): Promise<void> {
  const existing = await lstat(finalDir).catch(() => undefined)
  if (existing) throw alreadyExists(finalDir)
}

/**
 * rename() replaces an existing *empty* directory on POSIX and fails on a non-empty one, so checking first and
 * mapping the rename error covers both: a bundle (never empty) is never replaced.
 */
async function publish(staging: string, finalDir: string): Promise<void> {
  await refuseExisting(finalDir)
  try {
    await rename(staging, finalDir)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM') throw alreadyExists(finalDir, e)
    throw e
  }
}

function alreadyExists(finalDir: string, cause?: unknown): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'BUNDLE_EXISTS',
    `a bundle already exists at ${finalDir}; bundles are never overwritten.`,
    {
      hint: 'Use a new run id, or move the existing bundle away first.',
      cause,
    },
  )
}

function invalidInput(findings: FindingList): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'BUNDLE_INVALID',
    'refusing to write an invalid bundle (a bug in the code that called writeBundle; nothing was written):\n' +
      formatFindings(findings.toArray()),
  )
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`
}
