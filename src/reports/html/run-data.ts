import type { RunMetadata, RunSummary } from '../../core/index.ts'
import { DASH, seconds } from '../format.ts'
import type { PageData } from './page-data.ts'

/** The run's identity, as report.md's header gives it, and a caveat when the run is not whole. */
export function runFacts(
  metadata: RunMetadata,
  summary: RunSummary,
): Pick<PageData, 'title' | 'run' | 'caveat'> {
  const runners = metadata.targets.length > 0 ? metadata.targets : metadata.target ? [metadata.target] : []
  const benchmarks =
    metadata.benchmarks.length > 0 ? metadata.benchmarks : metadata.benchmark ? [metadata.benchmark] : []
  const run: [string, string][] = [
    ['Run', metadata.runId],
    ['Status', metadata.status],
    ['Target', runners.map((r) => `${r.name} (${r.kind})`).join(', ') || DASH],
    ['Benchmark', benchmarks.map((b) => `${b.id} ${b.version}`).join(', ') || DASH],
    ['Started', `${metadata.startedAt} (${seconds(metadata.durationSec)} s)`],
    ['Trials', String(summary.n)],
    ['Versions', `agentevalops ${metadata.sdkVersion}, Node ${metadata.node}, Vitest ${metadata.vitest}`],
  ]
  if (metadata.git.sha) run.push(['Git', `${metadata.git.sha}${metadata.git.dirty ? ' (dirty)' : ''}`])
  if (metadata.shard) run.push(['Shard', `${metadata.shard.index}/${metadata.shard.count}`])
  if (metadata.testNamePattern) run.push(['Filter', `-t ${metadata.testNamePattern}`])
  const labels = Object.entries(metadata.labels)
  if (labels.length > 0) run.push(['Labels', labels.map(([k, v]) => `${k}=${v}`).join(', ')])
  return { title: `Run ${metadata.runId}`, run, caveat: caveatOf(metadata) }
}

function caveatOf(metadata: RunMetadata): string | null {
  if (metadata.status === 'interrupted') {
    return 'Interrupted run: only the trials that finished are reported; do not use it as a baseline.'
  }
  if (metadata.status === 'partial-shard' && metadata.shard) {
    return `Partial run: this bundle holds shard ${metadata.shard.index} of ${metadata.shard.count}.`
  }
  return null
}
