import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { AgentEvalOpsError, RunMetadata } from '../core/index.ts'
import { MANIFEST_FILE, METADATA_FILE } from './layout.ts'

/** The word that asks for the newest earlier bundle instead of a path. */
export const LATEST_BASELINE = 'latest'

export interface FindBaselineOptions {
  /** The benchmarks the candidate ran: a baseline must hold every one of them. */
  benchmarkIds: readonly string[]
  /** The run being compared, never its own baseline. */
  excludeRunId?: string | undefined
}

/**
 * The bundle folder a baseline spec names: a path as given, or for `latest` the newest sealed, complete bundle in
 * runsDir that ran the same benchmarks. Interrupted and partial-shard runs are never picked: a verdict against
 * half a run would be wrong in a way nobody sees.
 */
export async function findBaseline(
  spec: string,
  runsDir: string,
  options: FindBaselineOptions,
): Promise<string> {
  if (spec !== LATEST_BASELINE) return resolve(spec)
  const names = await readdir(runsDir).catch(() => [] as string[])
  const candidates: { dir: string; finishedAt: string; runId: string }[] = []
  for (const name of names) {
    if (name.startsWith('.') || name === options.excludeRunId) continue
    const dir = join(runsDir, name)
    const metadata = await readSealedMetadata(dir)
    if (!metadata || metadata.status !== 'complete') continue
    const ids = new Set(metadata.benchmarks.map((b) => b.id))
    if (!options.benchmarkIds.every((id) => ids.has(id))) continue
    candidates.push({ dir, finishedAt: metadata.finishedAt, runId: metadata.runId })
  }
  candidates.sort((a, b) => cmp(b.finishedAt, a.finishedAt) || cmp(b.runId, a.runId))
  const newest = candidates[0]
  if (!newest) {
    throw new AgentEvalOpsError(
      'BUNDLE_NOT_FOUND',
      `no complete bundle of ${options.benchmarkIds.join(', ') || 'this run'} in ${runsDir} to use as the latest baseline.`,
      {
        hint: 'Run once without a baseline to make one, or name a bundle folder (runs/<runId>) instead of "latest".',
      },
    )
  }
  return newest.dir
}

/** A sealed bundle's metadata, or undefined for anything else (a staging folder, a damaged or foreign folder). */
export async function readSealedMetadata(dir: string): Promise<RunMetadata | undefined> {
  try {
    await readFile(join(dir, MANIFEST_FILE))
    const parsed = RunMetadata.safeParse(JSON.parse(await readFile(join(dir, METADATA_FILE), 'utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
