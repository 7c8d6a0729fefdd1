import { createReadStream } from 'node:fs'
import { mkdir, open } from 'node:fs/promises'
import { dirname } from 'node:path'
import { createInterface } from 'node:readline'
import { AgentEvalOpsError, errorMessage, MonitorLedgerLine } from '../../core/index.ts'

/**
 * The traces a monitor already scored and published, so a rerun of a window (or an overlapping one) scores none of
 * them twice. A JSON Lines file, only ever appended to: a crash mid-append costs at most its last line, which the
 * next read skips with a warning. A trace counts as scored for one monitor and one set of evaluators (their key):
 * changing the evaluators scores the window again.
 */
export interface ScoredTraceLedger {
  readonly path: string
  /** Traces this monitor scored with these evaluators. */
  has(traceId: string): boolean
  readonly size: number
  /** Appends the traces of a run whose scores reached every sink (fsynced before it returns). */
  record(traceIds: Iterable<string> | AsyncIterable<string>, runId: string): Promise<void>
}

export interface LedgerKey {
  monitorId: string
  evaluatorsKey: string
}

/** Reads the ledger at `path` (none there: an empty one, created at the first record). */
export async function openLedger(
  path: string,
  key: LedgerKey,
  warn: (line: string) => void,
): Promise<ScoredTraceLedger> {
  const scored = new Set<string>()
  await readLines(path, key, scored, warn)
  return {
    path,
    has: (traceId) => scored.has(traceId),
    get size() {
      return scored.size
    },
    async record(traceIds, runId) {
      const fresh: string[] = []
      for await (const id of traceIds) if (!scored.has(id)) fresh.push(id)
      if (fresh.length === 0) return
      const at = new Date().toISOString()
      const text = fresh
        .map((traceId) => JSON.stringify({ v: 1, ...key, traceId, runId, at } satisfies MonitorLedgerLine))
        .join('\n')
      try {
        await mkdir(dirname(path), { recursive: true })
        const handle = await open(path, 'a')
        try {
          await handle.write(`${text}\n`)
          await handle.sync()
        } finally {
          await handle.close()
        }
      } catch (e) {
        throw new AgentEvalOpsError(
          'INFRA_FAILURE',
          `cannot append to the ledger ${path}: ${errorMessage(e)}; the scores were published, but a rerun of ` +
            'this window would score its traces again.',
          { hint: 'Make the ledger file writable (or point --ledger elsewhere).', cause: e },
        )
      }
      for (const id of fresh) scored.add(id)
    },
  }
}

async function readLines(
  path: string,
  key: LedgerKey,
  scored: Set<string>,
  warn: (line: string) => void,
): Promise<void> {
  const stream = createReadStream(path, { encoding: 'utf8' })
  const opened = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    stream.once('open', () => resolve(null))
    stream.once('error', (e) => resolve(e))
  })
  if (opened?.code === 'ENOENT') return
  const unreadable = (e: unknown) =>
    new AgentEvalOpsError('INFRA_FAILURE', `cannot read the ledger ${path}: ${errorMessage(e)}`, {
      hint: 'Make the ledger file readable, or point --ledger at another file (a new one starts empty).',
      cause: e,
    })
  if (opened) throw unreadable(opened)
  let n = 0
  let bad = 0
  // A read that fails midway (a folder, an I/O error) must not pass for a shorter ledger.
  try {
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
      n++
      if (text.trim() === '') continue
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        value = undefined
      }
      const line = MonitorLedgerLine.safeParse(value)
      if (!line.success) {
        if (bad++ === 0)
          warn(`ledger ${path}:${n}: not a ledger line; skipped (its trace may be scored again)`)
        continue
      }
      if (line.data.monitorId === key.monitorId && line.data.evaluatorsKey === key.evaluatorsKey)
        scored.add(line.data.traceId)
    }
  } catch (e) {
    throw unreadable(e)
  }
  if (bad > 1) warn(`ledger ${path}: ${bad} lines were not ledger lines and were skipped`)
}
