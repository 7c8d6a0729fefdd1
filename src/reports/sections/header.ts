import type { BenchmarkInfo, RunMetadata, RunnerInfo } from '../../core/index.ts'
import { DASH, seconds } from '../format.ts'

/** The run's identity: id, status, target, benchmark, versions; and a caveat when the run is not whole. */
export function headerSection(metadata: RunMetadata): string {
  const lines = [`# Run ${metadata.runId}`, '']
  const facts: [string, string][] = [
    ['Status', metadata.status],
    ['Target', runners(metadata.targets, metadata.target)],
    ['Benchmark', benchmarks(metadata.benchmarks, metadata.benchmark)],
    ['Started', `${metadata.startedAt} (${seconds(metadata.durationSec)} s)`],
    ['Versions', `agentevalops ${metadata.sdkVersion}, Node ${metadata.node}, Vitest ${metadata.vitest}`],
  ]
  if (metadata.git.sha) facts.push(['Git', `${metadata.git.sha}${metadata.git.dirty ? ' (dirty)' : ''}`])
  if (metadata.shard) facts.push(['Shard', `${metadata.shard.index}/${metadata.shard.count}`])
  if (metadata.testNamePattern) facts.push(['Filter', `\`-t ${metadata.testNamePattern}\``])
  const labels = Object.entries(metadata.labels)
  if (labels.length > 0) facts.push(['Labels', labels.map(([k, v]) => `${k}=${v}`).join(', ')])
  lines.push(...facts.map(([name, value]) => `- **${name}:** ${value}`))
  const caveat = statusCaveat(metadata)
  if (caveat) lines.push('', `> ${caveat}`)
  return lines.join('\n')
}

function statusCaveat(metadata: RunMetadata): string | undefined {
  if (metadata.status === 'interrupted') {
    return '**Interrupted run:** only the trials that finished are reported; do not use it as a baseline.'
  }
  if (metadata.status === 'partial-shard' && metadata.shard) {
    return `**Partial run:** this bundle holds shard ${metadata.shard.index} of ${metadata.shard.count}.`
  }
  return undefined
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
