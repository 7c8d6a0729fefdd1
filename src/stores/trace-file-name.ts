import { sha256 } from '../core/index.ts'

const UNSAFE = /[^A-Za-z0-9._-]+/g
const MAX_STEM = 60

/**
 * File name of one trial's trace. Task ids come from datasets (`HumanEval/0`, ids with spaces, unicode), so the
 * readable stem is sanitized and shortened; the hash of the exact id keeps two ids that sanitize alike apart.
 */
export function traceFileName(taskId: string, trial: number): string {
  const stem =
    taskId
      .replace(UNSAFE, '_')
      // A leading dot would hide the file, and `..` must never read as a path step.
      .replace(/^\.+/, '_')
      .slice(0, MAX_STEM) || '_'
  return `${stem}.${sha256(taskId).slice(0, 10)}.t${trial}.jsonl`
}
