import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { RunStatus } from '../core/index.ts'
import { readSealedMetadata } from './find-baseline.ts'

/** A folder of a runs folder, and what its metadata says when it is a sealed bundle. */
export interface RunFolder {
  /** The folder's name in the runs folder (the run id, for a bundle a run wrote). */
  name: string
  dir: string
  /** Undefined for a folder that is not a sealed bundle (no manifest, or metadata that does not parse). */
  bundle?: {
    runId: string
    status: RunStatus
    /** The benchmarks the run holds, sorted. */
    benchmarkIds: string[]
    finishedAt: string
  }
}

/**
 * The folders of `runsDir`, sealed bundles with their metadata. Dot-folders are not listed: `.staging/` holds the
 * staging folders of live runs (and of dead ones, which are `recover`'s), never a bundle.
 */
export async function listRunFolders(runsDir: string): Promise<RunFolder[]> {
  const entries = await readdir(runsDir, { withFileTypes: true })
  const folders: RunFolder[] = []
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    const dir = join(runsDir, entry.name)
    const metadata = await readSealedMetadata(dir)
    folders.push(
      metadata === undefined
        ? { name: entry.name, dir }
        : {
            name: entry.name,
            dir,
            bundle: {
              runId: metadata.runId,
              status: metadata.status,
              benchmarkIds: [...new Set(metadata.benchmarks.map((b) => b.id))].sort(),
              finishedAt: metadata.finishedAt,
            },
          },
    )
  }
  return folders.sort((a, b) => cmp(a.name, b.name))
}

export type KeepReason =
  /** One of the N newest complete bundles of its benchmarks. */
  | 'newest'
  /** A baseline reference names it. */
  | 'baseline'
  /** Interrupted, but its benchmarks have no complete bundle: it is the only copy of their results. */
  | 'only-copy'
  /** One shard's bundle, to be merged with the others: prune cannot tell whether that is done. */
  | 'shard'
  /** Not a sealed bundle: prune removes only what it can read. */
  | 'not-a-bundle'

export interface PrunePlan {
  /** Newest first within each group. */
  remove: RunFolder[]
  keep: { folder: RunFolder; reason: KeepReason }[]
}

export interface PruneOptions {
  /** Complete bundles kept per group of benchmarks: a positive integer. */
  keep: number
  /** Names of the folders a baseline reference points at; they are never removed. */
  baselines: ReadonlySet<string>
}

/**
 * Which bundles `prune --keep N` removes. Bundles are grouped by the benchmarks they hold (a run of toy and
 * humaneval is a group of its own, beside the runs of toy alone): the newest complete bundle holding any set of
 * benchmarks is then always the newest of its own group, so `--baseline latest` finds the same bundle after a
 * prune as before it. In each group the N newest complete bundles stay; older complete ones go; interrupted ones
 * go too, unless the group has no complete bundle, in which case its newest interrupted bundle stays. Shard
 * bundles, folders that are not sealed bundles and every bundle a baseline names are kept.
 */
export function planPrune(folders: readonly RunFolder[], options: PruneOptions): PrunePlan {
  if (!Number.isInteger(options.keep) || options.keep < 1)
    throw new RangeError(`keep must be a positive integer, got ${options.keep}`)
  const plan: PrunePlan = { remove: [], keep: [] }
  const groups = new Map<string, RunFolder[]>()
  for (const folder of folders) {
    if (folder.bundle === undefined) plan.keep.push({ folder, reason: 'not-a-bundle' })
    else if (folder.bundle.status === 'partial-shard') plan.keep.push({ folder, reason: 'shard' })
    else {
      const key = folder.bundle.benchmarkIds.join('\n')
      groups.set(key, [...(groups.get(key) ?? []), folder])
    }
  }
  for (const group of groups.values()) {
    const newestFirst = [...group].sort(newerFirst)
    // A monitor window is whole in its own way: its group (the monitor's name) keeps its newest windows.
    const complete = newestFirst.filter(
      (f) => f.bundle?.status === 'complete' || f.bundle?.status === 'monitor',
    )
    const kept = new Map<RunFolder, KeepReason>(complete.slice(0, options.keep).map((f) => [f, 'newest']))
    const newestInterrupted = newestFirst.find((f) => f.bundle?.status === 'interrupted')
    if (complete.length === 0 && newestInterrupted !== undefined) kept.set(newestInterrupted, 'only-copy')
    for (const folder of newestFirst) {
      const reason = kept.get(folder) ?? (options.baselines.has(folder.name) ? 'baseline' : undefined)
      if (reason === undefined) plan.remove.push(folder)
      else plan.keep.push({ folder, reason })
    }
  }
  return plan
}

/** Newest first by finish time, then by run id (as `--baseline latest` picks). */
function newerFirst(a: RunFolder, b: RunFolder): number {
  return (
    cmp(b.bundle?.finishedAt ?? '', a.bundle?.finishedAt ?? '') ||
    cmp(b.bundle?.runId ?? '', a.bundle?.runId ?? '') ||
    cmp(b.name, a.name)
  )
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
