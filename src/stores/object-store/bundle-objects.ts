import { AgentEvalOpsError, Manifest, errorMessage } from '../../core/index.ts'

/** The bundle file that vouches for all others: uploaded last, so that its presence means the bundle is whole. */
export const MANIFEST_FILE = 'manifest.json'

/** Objects in flight at once, per bundle: enough to hide latency, few enough for a small machine. */
export const TRANSFER_CONCURRENCY = 8

/**
 * A path named by a manifest (from a bucket anyone with write access can fill) stays inside the bundle folder:
 * relative, POSIX, no `.`/`..` segments, no drive letter.
 */
export function isSafeBundlePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || /[\\\0]/.test(path) || /^[a-zA-Z]:/.test(path)) return false
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
}

/** A run id that can name one folder: a single safe segment, not hidden. */
export function isSafeRunId(runId: string): boolean {
  return isSafeBundlePath(runId) && !runId.includes('/') && !runId.startsWith('.')
}

/** Parses manifest text; `where` names it in the error (a local folder or an s3:// key). */
export function parseManifest(text: string, where: string): Manifest {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw new AgentEvalOpsError('BUNDLE_INVALID', `${where} is not JSON (${errorMessage(e)}).`)
  }
  const parsed = Manifest.safeParse(json)
  if (!parsed.success)
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `${where} is not a bundle manifest: ${parsed.error.message}`,
    )
  const manifest = parsed.data
  if (!isSafeRunId(manifest.runId))
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `${where} names run id ${JSON.stringify(manifest.runId)}, which cannot name a folder.`,
    )
  for (const entry of manifest.files) {
    if (!isSafeBundlePath(entry.path) || entry.path === MANIFEST_FILE)
      throw new AgentEvalOpsError(
        'BUNDLE_INVALID',
        `${where} lists ${JSON.stringify(entry.path)}, which is no path inside a bundle.`,
      )
  }
  return manifest
}

/** Runs `fn` over `items`, at most `limit` at a time; the first failure is thrown once every started call ended. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0
  let failure: { error: unknown } | undefined
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!
      try {
        await fn(item)
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  if (failure !== undefined) throw failure.error
}
