import { join } from 'node:path'
import { closeFile, openBundleFile, readWhole } from '../../bundles/bundle-file.ts'
import { formatBytes, MAX_WHOLE_FILE_BYTES } from '../../bundles/limits.ts'
import { checkSchema, parseJsonText, type Schema } from '../../bundles/untrusted-json.ts'

export type SmallFile = { ok: true; bytes: Buffer } | { ok: false; problem: string }

/**
 * One of a bundle's small files, read the way the validator reads it: a regular file reached without a symlink
 * (a FIFO or a link out of the folder is refused, never opened), within the validator's size limit for it.
 */
export async function readSmallFile(dir: string, name: string): Promise<SmallFile> {
  const opened = await openBundleFile(join(dir, name))
  if (!opened.ok) return { ok: false, problem: opened.problem }
  try {
    const limit = MAX_WHOLE_FILE_BYTES[name] ?? 1024 * 1024
    if (opened.size > limit)
      return {
        ok: false,
        problem: `is ${formatBytes(opened.size)}, over the ${formatBytes(limit)} a reader loads`,
      }
    return { ok: true, bytes: await readWhole(opened) }
  } catch (e) {
    return { ok: false, problem: `could not be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` }
  } finally {
    await closeFile(opened.fd)
  }
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string }

/** The bytes as JSON of `schema`: depth-limited and checked without throwing, as the validator parses them. */
export function parseSmallJson<T>(bytes: Buffer, schema: Schema<T>): Parsed<T> {
  const json = parseJsonText(bytes.toString('utf8'))
  if (!json.ok) return json
  return parseSmallValue(json.value, schema)
}

/** An already parsed value against `schema`, without throwing. */
export function parseSmallValue<T>(value: unknown, schema: Schema<T>): Parsed<T> {
  const checked = checkSchema(schema, value)
  return checked.ok ? { ok: true, value: checked.data } : checked
}
