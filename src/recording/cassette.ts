import { mkdir, readFile, writeFile, appendFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { AgentEvalOpsError, RecordedExchange, redactorFromEnv, safeFileStem } from '../core/index.ts'

/** One recorded model exchange, one JSON line of a task's cassette file (the schema is core's, a bundle file's). */
export const RecordingEntry = RecordedExchange
export type RecordingEntry = RecordedExchange

/** `<dir>/<task>.jsonl`: one file per task, so a changed task re-records (and diffs) on its own. */
export function cassettePath(dir: string, taskId: string): string {
  return join(dir, `${safeFileStem(taskId)}.jsonl`)
}

/** A cassette's entries; a missing file has none. A corrupt line is an error naming the file and line. */
export async function readCassette(path: string): Promise<RecordingEntry[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
  const entries: RecordingEntry[] = []
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      parsed = undefined
    }
    const entry = RecordingEntry.safeParse(parsed)
    if (!entry.success) {
      throw new AgentEvalOpsError('CONFIG_INVALID', `${path}:${index + 1}: not a recorded model exchange`, {
        hint: 'Delete the file (or the line) and record again with AGENTEVALOPS_RECORD=record.',
      })
    }
    entries.push(entry.data)
  }
  return entries
}

// Cassettes are committed beside the eval files: a secret in a request or a reply must not land in the repository.
// The entry's key was computed before redaction, from what was really sent, so replay still finds it.
const redactor = () => redactorFromEnv(process.env)

export async function writeCassette(path: string, entries: readonly RecordingEntry[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const redact = redactor()
  await writeFile(path, entries.map((e) => `${JSON.stringify(redact.json(e))}\n`).join(''))
}

export async function appendToCassette(path: string, entry: RecordingEntry): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await appendFile(path, `${JSON.stringify(redactor().json(entry))}\n`)
}
