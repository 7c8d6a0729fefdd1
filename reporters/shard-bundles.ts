import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { TestModule } from 'vitest/node'
import * as z from 'zod'
import { META_KEY, RunMetadata, TRIAL_CASE_META_KEY } from '../src/core/index.ts'
import { METADATA_FILE } from '../src/bundles/index.ts'

import type {} from './vitest-channel.ts'

/** A bundle found in the runs folder, with its metadata. */
export interface FoundBundle {
  dir: string
  metadata: RunMetadata
  /** metadata.mergedFrom of a merged bundle (read here, so that an older schema's parse cannot drop it). */
  mergedFrom: readonly string[] | null
}

/** The runs whose bundles hold the replayed trials, as each trial case's meta says; read from the blob files. */
export interface ReportedRuns {
  runIds: string[]
  /** Trial cases with a record but no run id: made by an SDK from before the run id rode the meta. */
  withoutRunId: number
}

const CaseRun = z.object({ runId: z.string().min(1) })
const MergedFrom = z.object({ mergedFrom: z.array(z.string().min(1)).optional() })

/** The run ids the trial cases of `project` name, in the order first met. */
export function reportedRuns(modules: readonly TestModule[], project: string): ReportedRuns {
  const runIds = new Set<string>()
  let withoutRunId = 0
  for (const module of modules) {
    if (module.project.name !== project) continue
    for (const test of module.children.allTests()) {
      const meta = test.meta()
      if (meta[META_KEY] === undefined) continue
      const parsed = CaseRun.safeParse(meta[META_KEY])
      if (parsed.success) runIds.add(parsed.data.runId)
      else if (meta[TRIAL_CASE_META_KEY] === true) withoutRunId++
    }
  }
  return { runIds: [...runIds], withoutRunId }
}

/**
 * The bundles in `runsDir`: its folders, and the folders one level below any folder that is no bundle (CI artifacts
 * are downloaded one folder per artifact). A folder whose metadata does not parse is no bundle here.
 */
export async function findBundles(runsDir: string): Promise<FoundBundle[]> {
  const found: FoundBundle[] = []
  for (const dir of await subfolders(runsDir)) {
    const bundle = await readFound(dir)
    if (bundle) {
      found.push(bundle)
      continue
    }
    for (const inner of await subfolders(dir)) {
      const innerBundle = await readFound(inner)
      if (innerBundle) found.push(innerBundle)
    }
  }
  return found
}

async function subfolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => join(dir, e.name))
    .sort()
}

async function readFound(dir: string): Promise<FoundBundle | undefined> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(join(dir, METADATA_FILE), 'utf8'))
  } catch {
    return undefined
  }
  const metadata = RunMetadata.safeParse(raw)
  if (!metadata.success) return undefined
  const merged = MergedFrom.safeParse(raw)
  return {
    dir,
    metadata: metadata.data,
    mergedFrom: merged.success ? (merged.data.mergedFrom ?? null) : null,
  }
}

/** A shard whose bundle is not there: known by its run id (its cases were replayed), its index, or both. */
export interface MissingShard {
  runId: string | null
  shard: { index: number; count: number } | null
}

export type MergePlan =
  /** Every shard's bundle is here: merge these, in shard order. */
  | { kind: 'merge'; bundles: FoundBundle[] }
  /** A bundle merged from every replayed run (and `shards` inputs in all) is here already. */
  | { kind: 'merged'; bundle: FoundBundle; shards: number }
  /** The replayed cases are of one run that was no shard: its bundle is the run's. */
  | { kind: 'one'; bundle: FoundBundle }
  /** Some shard's bundle is not here (`found` are those that are, in shard order). */
  | { kind: 'missing'; found: FoundBundle[]; missing: MissingShard[] }
  /** Bundles of runs that were no shards of one run: nothing to merge them into. */
  | { kind: 'unsharded'; bundles: FoundBundle[] }

/** What the merge job can make of the replayed runs' bundles among those found in the runs folder. */
export function planMerge(runIds: readonly string[], found: readonly FoundBundle[]): MergePlan {
  const byRunId = new Map<string, FoundBundle>()
  // A shard's bundle, not a merged bundle that took its run id: the first found of a run id that is no merge.
  for (const bundle of found) {
    if (bundle.mergedFrom === null && !byRunId.has(bundle.metadata.runId))
      byRunId.set(bundle.metadata.runId, bundle)
  }
  // Merged before (this job run again, or `agentevalops merge` ran first and the shards' bundles are elsewhere): a
  // merge refuses missing shards, so a bundle merged from every replayed run is the run's.
  const earlier = found.find((b) => b.mergedFrom !== null && runIds.every((id) => b.mergedFrom!.includes(id)))
  if (earlier) return { kind: 'merged', bundle: earlier, shards: earlier.mergedFrom!.length }
  const present: FoundBundle[] = []
  const unfound: string[] = []
  for (const runId of runIds) {
    const bundle = byRunId.get(runId)
    if (bundle) present.push(bundle)
    else unfound.push(runId)
  }
  const sharded = present.filter((b) => b.metadata.shard)
  if (unfound.length === 0 && sharded.length === 0) {
    return present.length === 1
      ? { kind: 'one', bundle: present[0]! }
      : { kind: 'unsharded', bundles: present }
  }
  const count = sharded[0]?.metadata.shard?.count
  const covered = new Set(sharded.map((b) => b.metadata.shard!.index))
  const uncovered: number[] = []
  if (count !== undefined) {
    const group = sharded[0]!.metadata.runGroup ?? null
    for (let i = 1; i <= count; i++) {
      if (covered.has(i)) continue
      // A shard that drew no task replays no trial case, but its (empty) bundle is of the same run group.
      const empty = group === null ? [] : found.filter((b) => sameGroupShard(b, group, i, count))
      if (empty.length === 1) present.push(empty[0]!)
      else uncovered.push(i)
    }
  }
  present.sort((a, b) => (a.metadata.shard?.index ?? 0) - (b.metadata.shard?.index ?? 0))
  if (unfound.length > 0 || uncovered.length > 0) {
    // One run id and one index unaccounted for are the same shard; more cannot be paired.
    const pair = unfound.length === 1 && uncovered.length === 1
    const missing: MissingShard[] = pair
      ? [{ runId: unfound[0]!, shard: { index: uncovered[0]!, count: count! } }]
      : [
          ...unfound.map((runId) => ({ runId, shard: null })),
          ...uncovered.map((index) => ({ runId: null, shard: { index, count: count! } })),
        ]
    return { kind: 'missing', found: present, missing }
  }
  return { kind: 'merge', bundles: present }
}

function sameGroupShard(bundle: FoundBundle, group: string, index: number, count: number): boolean {
  const { shard, runGroup } = bundle.metadata
  return (
    bundle.mergedFrom === null &&
    runGroup === group &&
    shard?.index === index &&
    shard.count === count &&
    bundle.metadata.trialCount === 0
  )
}

/** The line for shards whose bundles are not there, with the merge command that makes the bundle once they are. */
export function missingLine(
  found: readonly FoundBundle[],
  missing: readonly MissingShard[],
  runsDir: string,
): string {
  const names = missing.map((m) => {
    const shard = m.shard ? `shard ${m.shard.index}/${m.shard.count}` : null
    if (shard && m.runId) return `${shard} (run ${m.runId})`
    return shard ?? `run ${m.runId}`
  })
  const dirs = [
    ...found.map((b) => shown(b.dir)),
    ...missing.map((m) =>
      m.runId ? shown(join(runsDir, m.runId)) : `<bundle of shard ${m.shard!.index}/${m.shard!.count}>`,
    ),
  ]
  const what = names.length === 1 ? `the bundle of ${names[0]} is` : `the bundles of ${names.join(', ')} are`
  return (
    `no merged bundle written: ${what} not in ${shown(runsDir)}; once every shard's bundle is there ` +
    `(e.g. downloaded as an artifact), make it with: npx agentevalops merge ${dirs.join(' ')}`
  )
}

function shown(dir: string): string {
  return relative(process.cwd(), dir) || dir
}
