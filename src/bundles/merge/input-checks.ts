import { canonicalJson, type RunMetadata } from '../../core/index.ts'
import { recordKey, trialKeyString, type TrialKey } from '../layout.ts'
import { nameTrials } from '../registered-checks.ts'
import { gateProblems } from './gates.ts'
import type { MergeShard } from './read-inputs.ts'

/**
 * Why the inputs are not the parts of one run, one line per reason, each naming the input (or trial) at fault;
 * empty when they can be merged. Inputs are either all shards (`partial-shard`) of one run, every index of their
 * count once, or all whole bundles (`complete`) of the same config whose trials do not overlap.
 */
export function mergeProblems(shards: readonly MergeShard[]): string[] {
  if (shards.length === 0) return ['no bundle to merge was given']
  const problems = [...sameRunIdTwice(shards), ...statusProblems(shards)]
  // A bundle given twice would also read as a different config and as every trial twice: say only the first.
  if (problems.length > 0) return problems
  return [
    ...configProblems(shards),
    ...gateProblems(shards),
    ...shardSetProblems(shards),
    ...duplicateTrials(shards),
  ]
}

function sameRunIdTwice(shards: readonly MergeShard[]): string[] {
  const seen = new Map<string, MergeShard>()
  const problems: string[] = []
  for (const shard of shards) {
    const first = seen.get(shard.bundle.metadata.runId)
    if (first) {
      const where = first.dir === shard.dir ? '' : ` (${first.dir} is the same run)`
      problems.push(`${shard.label} is given twice${where}: give each shard once`)
    } else seen.set(shard.bundle.metadata.runId, shard)
  }
  return problems
}

function statusProblems(shards: readonly MergeShard[]): string[] {
  const problems: string[] = []
  for (const shard of shards) {
    const { status } = shard.bundle.metadata
    if (status === 'interrupted')
      problems.push(
        `${shard.label} is interrupted: finish it first (agentevalops run --resume ${shard.dir}, or ` +
          `AGENTEVALOPS_RESUME=${shard.dir} npx vitest run), then merge the bundle that run writes`,
      )
  }
  const kinds = new Set(shards.map((s) => s.bundle.metadata.status))
  if (kinds.has('partial-shard') && kinds.has('complete')) {
    const whole = shards.filter((s) => s.bundle.metadata.status === 'complete')
    const runIds = new Set(shards.map((s) => s.bundle.metadata.runId))
    for (const merged of whole.filter((w) => w.bundle.metadata.mergedFrom?.some((id) => runIds.has(id))))
      problems.push(
        `${merged.label} is the bundle merged from shards given here already (its mergedFrom names them): ` +
          'leave it out, or give an output folder apart from the shards',
      )
    const others = whole.filter((w) => !w.bundle.metadata.mergedFrom?.some((id) => runIds.has(id)))
    if (others.length > 0)
      problems.push(
        `${others.map((s) => s.label).join(', ')} ${others.length === 1 ? 'is a whole run' : 'are whole runs'}, ` +
          'the other inputs are shards: merge the shards of one run together, or whole runs of disjoint work together',
      )
  }
  return problems
}

/** What every part of one run shares. runGroup is compared only between inputs that carry one. */
function configProblems(shards: readonly MergeShard[]): string[] {
  const [first, ...rest] = shards as [MergeShard, ...MergeShard[]]
  const problems: string[] = []
  const fields: readonly [string, (m: RunMetadata) => string | null, string][] = [
    ['configHash', (m) => m.configHash, 'a different config'],
    ['sdkVersion', (m) => m.sdkVersion, 'another agentevalops version'],
    ['testNamePattern', (m) => m.testNamePattern ?? '(none)', 'another -t filter'],
  ]
  for (const [field, valueOf, meaning] of fields) {
    const expected = valueOf(first.bundle.metadata)
    for (const shard of rest) {
      const value = valueOf(shard.bundle.metadata)
      if (value !== expected)
        problems.push(
          `${shard.label} has ${field} ${JSON.stringify(value)} but ${first.label} has ${JSON.stringify(expected)}: ` +
            `it ran ${meaning}, so it is not part of the same run`,
        )
    }
  }
  problems.push(...runGroupProblems(shards), ...datasetProblems(shards), ...settingsProblems(shards))
  return problems
}

/** The run group, read loosely: bundles written before it was kept have none. */
export function runGroupOf(metadata: RunMetadata): string | null {
  const group = (metadata as RunMetadata & { runGroup?: unknown }).runGroup
  return typeof group === 'string' ? group : null
}

function runGroupProblems(shards: readonly MergeShard[]): string[] {
  const grouped = shards.filter((s) => runGroupOf(s.bundle.metadata) !== null)
  const [first, ...rest] = grouped
  if (!first) return []
  const expected = runGroupOf(first.bundle.metadata)
  return rest
    .filter((s) => runGroupOf(s.bundle.metadata) !== expected)
    .map(
      (s) =>
        `${s.label} belongs to run group ${JSON.stringify(runGroupOf(s.bundle.metadata))} but ${first.label} to ` +
        `${JSON.stringify(expected)}: they are shards of different runs (another run key or CI run)`,
    )
}

/** A benchmark's dataset (its version and checksum) must be the same wherever it appears. */
function datasetProblems(shards: readonly MergeShard[]): string[] {
  const seen = new Map<string, { dataset: string; shard: MergeShard }>()
  const problems: string[] = []
  for (const shard of shards) {
    for (const b of shard.bundle.metadata.benchmarks) {
      const dataset = `version ${JSON.stringify(b.version)}, dataset checksum ${JSON.stringify(b.datasetChecksum)}`
      const first = seen.get(b.id)
      if (!first) seen.set(b.id, { dataset, shard })
      else if (first.dataset !== dataset)
        problems.push(
          `${shard.label} ran benchmark ${JSON.stringify(b.id)} at ${dataset} but ${first.shard.label} at ` +
            `${first.dataset}: the shards saw different data`,
        )
    }
  }
  return problems
}

/** Statistics settings: the merged summary is computed with them, so they must be one. */
function settingsProblems(shards: readonly MergeShard[]): string[] {
  const withSummary = shards.filter((s) => s.bundle.scores.summary !== null)
  const [first, ...rest] = withSummary
  if (!first) return []
  const expected = canonicalJson(first.bundle.scores.summary!.settings)
  return rest
    .filter((s) => canonicalJson(s.bundle.scores.summary!.settings) !== expected)
    .map(
      (s) =>
        `${s.label} computed its statistics with other settings than ${first.label} ` +
        `(${canonicalJson(s.bundle.scores.summary!.settings)} vs ${expected}): the shards were run with different configs`,
    )
}

/** Shards: one count, every index from 1 to it exactly once. */
function shardSetProblems(shards: readonly MergeShard[]): string[] {
  const parts = shards.filter((s) => s.bundle.metadata.status === 'partial-shard')
  if (parts.length === 0) return []
  const problems: string[] = []
  const unnumbered = parts.filter((s) => s.bundle.metadata.shard === null)
  for (const s of unnumbered)
    problems.push(`${s.label} is a partial-shard bundle without its shard index and count`)
  const numbered = parts.filter((s) => s.bundle.metadata.shard !== null)
  const counts = new Set(numbered.map((s) => s.bundle.metadata.shard!.count))
  if (counts.size > 1) {
    problems.push(
      `the shards were split into different counts (${numbered.map((s) => s.label).join(', ')}): ` +
        'give the shards of one split',
    )
    return problems
  }
  const [count] = counts
  if (count === undefined) return problems
  const byIndex = new Map<number, MergeShard>()
  for (const s of numbered) {
    const index = s.bundle.metadata.shard!.index
    const first = byIndex.get(index)
    if (first)
      problems.push(`shard ${index}/${count} is given twice: ${first.label} and ${s.label}; give one of them`)
    else byIndex.set(index, s)
  }
  for (let index = 1; index <= count; index++) {
    if (!byIndex.has(index))
      problems.push(
        `shard ${index}/${count} is missing: give its bundle too (all ${count} shards of the run are needed)`,
      )
  }
  return problems
}

/**
 * A trial in two inputs: the shards overlap, and one of the two results would be thrown away. One line per pair of
 * inputs, naming the first trials (two splits of a big run overlap in thousands).
 */
function duplicateTrials(shards: readonly MergeShard[]): string[] {
  const seen = new Map<string, MergeShard>()
  const overlaps = new Map<string, { first: MergeShard; second: MergeShard; trials: TrialKey[] }>()
  for (const shard of shards) {
    for (const trial of shard.bundle.scores.trials) {
      const key = recordKey(trial)
      const id = trialKeyString(key)
      const first = seen.get(id)
      if (!first) {
        seen.set(id, shard)
        continue
      }
      const pair = `${first.dir}\u0000${shard.dir}`
      let overlap = overlaps.get(pair)
      if (!overlap) overlaps.set(pair, (overlap = { first, second: shard, trials: [] }))
      overlap.trials.push(key)
    }
  }
  return [...overlaps.values()].map(
    ({ first, second, trials }) =>
      `${trials.length} trial(s) are in both ${first.label} and ${second.label}: ${nameTrials(trials)}; ` +
      'the inputs overlap (shards of different splits, or a run merged with one of its own shards)',
  )
}
