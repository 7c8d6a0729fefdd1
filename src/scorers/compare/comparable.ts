import { AgentEvalOpsError, type BenchmarkInfo } from '../../core/index.ts'

/**
 * Refuses to compare runs of different benchmarks or of different datasets: their task ids may coincide while
 * meaning different things, and a verdict over them would be noise presented as evidence.
 */
export function checkComparable(
  baseline: readonly BenchmarkInfo[],
  candidate: readonly BenchmarkInfo[],
  force: boolean,
): void {
  const problems: string[] = []
  const known = new Map(baseline.map((b) => [b.id, b]))
  for (const b of candidate) {
    const base = known.get(b.id)
    if (!base) {
      problems.push(`benchmark ${b.id} is not in the baseline (it has ${list(baseline)})`)
    } else if (base.datasetChecksum !== b.datasetChecksum) {
      problems.push(
        `benchmark ${b.id}: dataset checksum ${short(b.datasetChecksum)} differs from the baseline's ${short(base.datasetChecksum)}`,
      )
    }
  }
  if (problems.length === 0 || force) return
  throw new AgentEvalOpsError('COMPARE_MISMATCH', `the runs are not comparable: ${problems.join('; ')}.`, {
    hint: 'Compare against a baseline of the same benchmark and dataset, or pass --force (force: true) to compare the tasks they share anyway.',
  })
}

function list(benchmarks: readonly BenchmarkInfo[]): string {
  return benchmarks.length === 0 ? 'none' : benchmarks.map((b) => b.id).join(', ')
}

function short(checksum: string): string {
  return checksum.slice(0, 12) || '(none)'
}
