import type { BenchmarkInfo, MonitorRunInfo, RunMetadata, RunnerInfo } from '../core/index.ts'
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
  if (metadata.monitor) facts.push(...monitorFacts(metadata.monitor))
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
  const stopped = metadata.monitor?.stoppedBy
  if (metadata.status === 'monitor' && stopped) {
    const why = { signal: 'a stop signal', 'max-traces': '--max-traces', 'max-cost': '--max-cost-usd' }[
      stopped
    ]
    return {
      title: 'Partial window',
      text: `scoring stopped early (${why}): only part of the window's traces are reported.`,
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

function monitorFacts(monitor: MonitorRunInfo): [string, string][] {
  const facts: [string, string][] = [
    ['Monitor', `${monitor.monitorName} (monitor ${monitor.monitorId}, run ${monitor.runId})`],
    ['Window', `${monitor.window.start} to ${monitor.window.end}`],
  ]
  const c = monitor.counts
  if (c) {
    const notScored = [
      [c.malformed, 'malformed'],
      [c.failed, 'failed'],
      [c.sampledOut, 'sampled out'],
      [c.alreadyScored, 'already scored'],
      [c.unsettled, 'unsettled'],
      [c.capped, 'capped'],
      [c.leftOut, 'left out by a stop'],
    ] as const
    const rest = notScored.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`)
    facts.push([
      'Traces',
      `${c.fetched} fetched, ${c.scored} scored${rest.length > 0 ? `; not scored: ${rest.join(', ')}` : ''}`,
    ])
  }
  return facts
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
