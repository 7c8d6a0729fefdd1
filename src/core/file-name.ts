import { sha256 } from './checksum.ts'

const UNSAFE = /[^A-Za-z0-9._-]+/g
const MAX_STEM = 60

/**
 * A file-name stem for an id from a dataset (`HumanEval/0`, ids with spaces, unicode): sanitized and shortened to
 * stay readable, with a hash of the exact id so two ids that sanitize alike stay apart.
 */
export function safeFileStem(id: string): string {
  const stem =
    id
      .replace(UNSAFE, '_')
      // A leading dot would hide the file, and `..` must never read as a path step.
      .replace(/^\.+/, '_')
      .slice(0, MAX_STEM) || '_'
  return `${stem}.${sha256(id).slice(0, 10)}`
}
