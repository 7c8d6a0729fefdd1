import { createReadStream } from 'node:fs'
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import { createInterface } from 'node:readline'
import { AgentEvalOpsError, errorMessage, MonitorSpillLine } from '../../core/index.ts'
import type { MonitorScore } from '../contract.ts'

/**
 * A window's scores on disk instead of in memory: one JSON line per scored trace (its id and its scores), appended
 * as traces are scored, read back as often as a sink needs (each publish attempt streams it from the start).
 * What stays in memory is two counts.
 */
export interface ScoreSpill {
  readonly path: string
  /** Scores appended so far. */
  readonly count: number
  /** Traces appended so far. */
  readonly traces: number
  /** Appends one trace's scores; calls must not overlap (the window chains them). */
  append(traceId: string, scores: readonly MonitorScore[]): Promise<void>
  /** Every score appended, in order; a fresh read of the file per call. */
  scores(): AsyncIterable<MonitorScore>
  /** Every trace id appended, in order. */
  traceIds(): AsyncIterable<string>
  /** Closes the file and removes it. */
  remove(): Promise<void>
}

/** Creates (truncating) the spill at `path`; its folder is made when missing. */
export async function openScoreSpill(path: string): Promise<ScoreSpill> {
  let handle: FileHandle | null
  try {
    await mkdir(dirname(path), { recursive: true })
    handle = await open(path, 'w')
  } catch (e) {
    throw spillError(path, 'create', e)
  }
  let count = 0
  let traces = 0
  return {
    path,
    get count() {
      return count
    },
    get traces() {
      return traces
    },
    async append(traceId, scores) {
      if (handle === null) throw spillError(path, 'append to', new Error('the spill was removed'))
      const line: MonitorSpillLine = { traceId, scores: scores.map(recordOf) }
      try {
        await handle.write(`${JSON.stringify(line)}\n`)
      } catch (e) {
        throw spillError(path, 'append to', e)
      }
      count += scores.length
      traces++
    },
    async *scores() {
      for await (const line of readSpillLines(path)) yield* line.scores
    },
    async *traceIds() {
      for await (const line of readSpillLines(path)) yield line.traceId
    },
    async remove() {
      const closing = handle
      handle = null
      await closing?.close().catch(() => undefined)
      await rm(path, { force: true })
    },
  }
}

/** The fields a spill line keeps of a score (a scorer's object may carry more). */
function recordOf(s: MonitorScore): MonitorScore {
  return {
    id: s.id,
    identifier: s.identifier,
    spanId: s.spanId,
    individual: s.individual,
    costUsd: s.costUsd,
    ...(s.passed === undefined ? {} : { passed: s.passed }),
  }
}

/**
 * The spill lines of a file, checked one by one; `skip` lines at its start are not spill lines (an unpublished
 * file's header). A line that is not one throws CONFIG_INVALID naming the file and line.
 */
export async function* readSpillLines(path: string, skip = 0): AsyncGenerator<MonitorSpillLine> {
  const stream = createReadStream(path, { encoding: 'utf8' })
  let n = 0
  try {
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
      n++
      if (n <= skip || text === '') continue
      yield parseSpillLine(text, path, n)
    }
  } catch (e) {
    if (e instanceof AgentEvalOpsError) throw e
    throw spillError(path, 'read', e)
  } finally {
    stream.destroy()
  }
}

function parseSpillLine(text: string, path: string, n: number): MonitorSpillLine {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw damaged(path, n, `not JSON (${errorMessage(e)})`)
  }
  const line = MonitorSpillLine.safeParse(value)
  if (line.success) return line.data
  const issue = line.error.issues[0]!
  throw damaged(path, n, `${issue.path.join('.') || '(line)'}: ${issue.message}`)
}

function damaged(path: string, n: number, what: string): AgentEvalOpsError {
  return new AgentEvalOpsError('CONFIG_INVALID', `not a line of monitor scores: ${what}`, {
    hint: 'The file was changed or cut short: give the file agentevalops monitor wrote, unchanged.',
    location: { file: path, line: n },
  })
}

function spillError(path: string, verb: string, e: unknown): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `cannot ${verb} the window's scores at ${path}: ${errorMessage(e)}`,
    { hint: 'Free disk space or make the --output folder writable, then run the window again.', cause: e },
  )
}
