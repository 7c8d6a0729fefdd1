import { BUNDLE_FORMAT_VERSION, canonicalJson, type RunMetadata, type ScoredTrial } from '../../core/index.ts'
import { runGroupOf } from './input-checks.ts'
import type { MergeShard } from './read-inputs.ts'
import { runTargets } from '../run-targets.ts'
import { mergedGates } from './gates.ts'
import { unionRegistered } from './union.ts'

/**
 * The metadata of the run the inputs are parts of: complete, no shard, the run group kept, `mergedFrom` naming the
 * inputs in order. What every input shares is kept; what they disagree on and no check needs (git commit, labels)
 * is kept only where they agree. The run's time span covers them all.
 */
export function mergedMetadata(
  shards: readonly MergeShard[],
  trials: readonly ScoredTrial[],
  runId: string,
): RunMetadata {
  const all = shards.map((s) => s.bundle.metadata)
  const first = all[0]!
  const startedAt = all.map((m) => m.startedAt).sort()[0]!
  const finishedAt = all
    .map((m) => m.finishedAt)
    .sort()
    .at(-1)!
  const registeredTrials = unionRegistered(shards)
  const runGroup = all.map(runGroupOf).find((g) => g !== null) ?? null
  const { targets, benchmarks } = runTargets(trials)
  const metadata: RunMetadata = {
    schemaVersion: BUNDLE_FORMAT_VERSION,
    runId,
    status: 'complete',
    labels: commonLabels(all),
    target: targets[0] ?? null,
    targets,
    benchmark: benchmarks[0] ?? null,
    benchmarks,
    startedAt,
    finishedAt,
    durationSec: Math.max(0, (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000),
    sdkVersion: first.sdkVersion,
    git: all.every((m) => canonicalJson(m.git) === canonicalJson(first.git))
      ? first.git
      : { sha: null, dirty: null },
    node: first.node,
    vitest: first.vitest,
    configHash: first.configHash,
    seed: first.seed,
    shard: null,
    vitestProject: first.vitestProject,
    testNamePattern: first.testNamePattern,
    trialCount: trials.length,
    ...(registeredTrials ? { registeredTrials } : {}),
    resumedFrom: [...new Set(all.flatMap((m) => m.resumedFrom))],
    mergedFrom: all.map((m) => m.runId),
  }
  const gates = mergedGates(all)
  if (gates.length > 0) metadata.gates = gates
  // Carried as the inputs had it (read loosely: bundles written before it was kept have none).
  return { ...metadata, runGroup }
}

/** The labels every input has with the same value. */
function commonLabels(all: readonly RunMetadata[]): Record<string, string> {
  const [first, ...rest] = all
  return Object.fromEntries(
    Object.entries(first?.labels ?? {}).filter(([key, value]) => rest.every((m) => m.labels[key] === value)),
  )
}
