import { createReadStream } from 'node:fs'
import { mkdir, open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import {
  AgentEvalOpsError,
  errorMessage,
  UNPUBLISHED_FILE_VERSION,
  UNPUBLISHED_FILE_VERSION_1,
  UnpublishedBatchFile,
  UnpublishedFileHeader,
} from '../../core/index.ts'
import type { MonitorScore, MonitorScoreBatch } from '../contract.ts'
import { readSpillLines } from './score-spill.ts'

export interface UnpublishedBatch {
  batch: MonitorScoreBatch
  failures: { sink: string; error: string }[]
  /** The window's score spill (see score-spill.ts): its lines become the file's body, byte for byte. */
  spillPath: string
  /** Traces in the spill. */
  traces: number
  evaluatorsKey: string
}

/**
 * Writes a batch no sink took to `<dir>/<runId>.unpublished.jsonl` (fsynced), never over an earlier one: a second
 * failure of the same run id gets `<runId>.unpublished-2.jsonl`, and so on. JSON Lines: a header (the batch
 * without its scores, their count, the failures), then the spill's lines copied as a stream, so a window of any
 * size is written in the memory of one chunk. Returns the file's path.
 */
export async function writeUnpublished(dir: string, unpublished: UnpublishedBatch): Promise<string> {
  const { batch } = unpublished
  const header = UnpublishedFileHeader.parse({
    version: UNPUBLISHED_FILE_VERSION,
    writtenAt: new Date().toISOString(),
    failures: unpublished.failures,
    evaluatorsKey: unpublished.evaluatorsKey,
    batch: {
      monitorId: batch.monitorId,
      runId: batch.runId,
      monitorName: batch.monitorName,
      window: batch.window,
      aggregated: batch.aggregated,
      count: batch.count,
      traces: unpublished.traces,
    },
  } satisfies UnpublishedFileHeader)
  const cannotWrite = (path: string, e: unknown) =>
    new AgentEvalOpsError(
      'INFRA_FAILURE',
      `cannot write the unpublished scores to ${path}: ${errorMessage(e)}`,
      { hint: 'Free disk space or make the --output folder writable.', cause: e },
    )
  await mkdir(dir, { recursive: true })
  const safeRunId = batch.runId.replace(/[^\w.-]/g, '_')
  for (let n = 1; n <= 1000; n++) {
    const path = join(dir, `${safeRunId}.unpublished${n === 1 ? '' : `-${n}`}.jsonl`)
    const handle = await open(path, 'wx').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EEXIST') return null
      throw cannotWrite(path, e)
    })
    if (handle === null) continue
    try {
      await handle.write(`${JSON.stringify(header)}\n`)
      // The spill's lines as they are, a read chunk at a time.
      for await (const chunk of createReadStream(unpublished.spillPath)) await handle.write(chunk as Buffer)
      await handle.sync()
    } catch (e) {
      throw cannotWrite(path, e)
    } finally {
      await handle.close()
    }
    return path
  }
  throw new AgentEvalOpsError('INFRA_FAILURE', `${dir} holds 1000 unpublished files of run ${batch.runId}`, {
    hint: 'Send them with agentevalops monitor publish --from-file <file>, then remove them.',
  })
}

/** An unpublished file, read back: its batch streams its scores from the file. */
export interface UnpublishedFile {
  version: number
  writtenAt: string
  failures: { sink: string; error: string }[]
  evaluatorsKey: string
  batch: MonitorScoreBatch
  /** The traces the batch scored: added to the ledger once the batch is sent. */
  traceIds(): AsyncIterable<string>
}

const GIVE_IT_UNCHANGED = 'Give the .unpublished.jsonl (or .json) file agentevalops monitor wrote, unchanged.'

/**
 * Reads a file writeUnpublished wrote, checked with zod line by line before anything is sent (a damaged, cut or
 * foreign file is refused by line and field): the current JSON Lines form, or the single JSON document of
 * version 1. The scores are not kept: the batch reads them from the file again when it is sent.
 */
export async function readUnpublished(path: string): Promise<UnpublishedFile> {
  const first = await firstLine(path)
  let value: unknown
  try {
    value = JSON.parse(first)
  } catch {
    // Version 1 is one indented JSON document: its first line alone is not JSON.
    return readVersion1(path)
  }
  const header = UnpublishedFileHeader.safeParse(value)
  if (!header.success) {
    if (isRecord(value) && value.version === UNPUBLISHED_FILE_VERSION_1) return readVersion1(path)
    throw refused(path, header.error.issues, 1)
  }
  let count = 0
  let traces = 0
  for await (const line of readSpillLines(path, 1)) {
    traces++
    count += line.scores.length
  }
  const { batch } = header.data
  if (count !== batch.count || traces !== batch.traces)
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${path} holds ${count} score(s) of ${traces} trace(s), its first line says ${batch.count} of ${batch.traces}: the file was cut short or changed`,
      { hint: GIVE_IT_UNCHANGED },
    )
  return {
    version: header.data.version,
    writtenAt: header.data.writtenAt,
    failures: header.data.failures,
    evaluatorsKey: header.data.evaluatorsKey,
    batch: {
      monitorId: batch.monitorId,
      runId: batch.runId,
      monitorName: batch.monitorName,
      window: batch.window,
      aggregated: batch.aggregated,
      count,
      async *scores() {
        for await (const line of readSpillLines(path, 1)) yield* line.scores
      },
    },
    async *traceIds() {
      for await (const line of readSpillLines(path, 1)) yield line.traceId
    },
  }
}

async function firstLine(path: string): Promise<string> {
  const stream = createReadStream(path, { encoding: 'utf8' })
  try {
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) return text
    return ''
  } catch (e) {
    throw new AgentEvalOpsError('USAGE', `--from-file: cannot read ${path}: ${errorMessage(e)}`)
  } finally {
    stream.destroy()
  }
}

async function readVersion1(path: string): Promise<UnpublishedFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (e) {
    throw new AgentEvalOpsError('USAGE', `--from-file: cannot read ${path}: ${errorMessage(e)}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `${path} is not JSON: ${errorMessage(e)}`, {
      hint: GIVE_IT_UNCHANGED,
    })
  }
  const parsed = UnpublishedBatchFile.safeParse(value)
  if (!parsed.success) throw refused(path, parsed.error.issues)
  const { batch, ...file } = parsed.data
  const scores: readonly MonitorScore[] = batch.scores
  return {
    version: file.version,
    writtenAt: file.writtenAt,
    failures: file.failures,
    evaluatorsKey: file.evaluatorsKey,
    batch: {
      monitorId: batch.monitorId,
      runId: batch.runId,
      monitorName: batch.monitorName,
      window: batch.window,
      aggregated: batch.aggregated,
      count: scores.length,
      async *scores() {
        yield* scores
      },
    },
    async *traceIds() {
      yield* file.traceIds
    },
  }
}

function refused(
  path: string,
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  line?: number,
): AgentEvalOpsError {
  const issue = issues[0]!
  const where = issue.path.length === 0 ? '(top)' : issue.path.map(String).join('.')
  return new AgentEvalOpsError(
    'CONFIG_INVALID',
    `${path}: ${where}: ${issue.message}${issues.length > 1 ? ` (and ${issues.length - 1} more problem(s))` : ''}`,
    { hint: GIVE_IT_UNCHANGED, location: { file: path, ...(line ? { line } : {}), path: where } },
  )
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}
