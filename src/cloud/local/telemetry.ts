import { copyFile, mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'

const SPANS_FILE = 'spans.jsonl'
const MANIFEST_FILE = 'manifest.json'

/**
 * Copies the spans of every bundle in a job's runs folder to `destination`, as `<job name>-<run id>-spans.jsonl`:
 * the local backend's "observability surface" is a folder an OTLP forwarder or a person can read. Bundles without
 * a manifest (still staging, or never sealed) are not the job's result and are skipped.
 */
export async function exportBundleSpans(
  outputDir: string,
  destination: string,
  jobName: string,
): Promise<string[]> {
  const entries = await readdir(outputDir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return []
    throw e
  })
  const written: string[] = []
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    const bundle = join(outputDir, entry.name)
    const files = await readdir(bundle)
    if (!files.includes(MANIFEST_FILE) || !files.includes(SPANS_FILE)) continue
    await mkdir(destination, { recursive: true })
    const target = join(destination, `${jobName}-${entry.name}-${SPANS_FILE}`)
    await copyFile(join(bundle, SPANS_FILE), target)
    written.push(target)
  }
  return written.sort()
}
