import type { BenchmarkInfo, RunMetadata, RunnerInfo } from '../core/index.ts'
import { DASH, seconds } from './format.ts'

/**
 * The run's identity as both reports state it: id, status, target, benchmark, versions, git, shard, filter and
 * labels, as plain (name, value) pairs that each report formats its own way.
 */
export function runFacts(metadata: RunMetadata): [string, string][] {
  const facts: [string, string][] = [
    ['Status', metadata.status],
    ['Target', runners(metadata.targets, metadata.target)],
    ['Benchmark', benchmarks(metadata.benchmarks, metadata.benchmark)],
    ['Started', `${metadata.startedAt} (${seconds(metadata.durationSec)} s)`],
    ['Versions', `agentevalops ${metadata.sdkVersion}, Node ${metadata.node}, Vitest ${metadata.vitest}`],
  ]
  if (metadata.git.sha) facts.push(['Git', `${metadata.git.sha}${metadata.git.dirty ? ' (dirty)' : ''}`])
  if (metadata.shard) facts.push(['Shard', `${metadata.shard.index}/${metadata.shard.count}`])
  if (metadata.testNamePattern) facts.push(['Filter', `-t ${metadata.testNamePattern}`])
  const labels = Object.entries(metadata.labels)
  if (labels.length > 0) facts.push(['Labels', labels.map(([k, v]) => `${k}=${v}`).join(', ')])
  return facts
}

/** Why the run's figures need care (it was interrupted, or is one shard), or null when the run is whole. */
export function statusCaveat(metadata: RunMetadata): { title: string; text: string } | null {
  if (metadata.status === 'interrupted') {
    return {
      title: 'Interrupted run',
      text: 'only the trials that finished are reported; do not use it as a baseline.',
    }
  }
  if (metadata.status === 'partial-shard' && metadata.shard) {
    return {
      title: 'Partial run',
      text: `this bundle holds shard ${metadata.shard.index} of ${metadata.shard.count}.`,
    }
  }
  return null
}

function runners(all: readonly RunnerInfo[], first: RunnerInfo | null): string {
  const list = all.length > 0 ? all : first ? [first] : []
  return list.length > 0 ? list.map((r) => `${r.name} (${r.kind})`).join(', ') : DASH
}

function benchmarks(all: readonly BenchmarkInfo[], first: BenchmarkInfo | null): string {
  const list = all.length > 0 ? all : first ? [first] : []
  if (list.length === 0) return DASH
  return list
    .map((b) => `${b.id} ${b.version} (dataset ${b.datasetChecksum.slice(0, 12) || DASH})`)
    .join(', ')
}
