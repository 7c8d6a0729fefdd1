import { randomBytes } from 'node:crypto'
import { mkdir, rm, rmdir, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'

/**
 * Why `dir` cannot take a new file, or undefined when it can: creates the folder if needed, writes and deletes a probe
 * file in it, and removes any folder it created. The probe's own error is the real reason (EROFS, EACCES, ENOSPC),
 * where a recursive mkdir below a read-only folder reports ENOENT.
 */
export async function whyNotWritable(dir: string): Promise<unknown> {
  let created: string | undefined
  const probe = join(dir, `.agentevalops-probe-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    created = await mkdir(dir, { recursive: true })
    await writeFile(probe, 'agentevalops probe\n', { flag: 'wx' })
    await rm(probe, { force: true })
    return undefined
  } catch (e) {
    return e
  } finally {
    if (created !== undefined) await removeCreated(dir, created)
  }
}

/** Removes the empty folders from `dir` up to `top` (mkdir's first created folder), never anything else. */
async function removeCreated(dir: string, top: string): Promise<void> {
  for (let current = dir; ; current = dirname(current)) {
    try {
      await rmdir(current)
    } catch {
      return
    }
    if (current === top || relative(top, current).startsWith('..')) return
  }
}
