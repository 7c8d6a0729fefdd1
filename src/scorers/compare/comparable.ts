import { AgentEvalOpsError, type BenchmarkInfo, type ScoredTrial } from '../../core/index.ts'
import { taskKey } from '../summary/task-groups.ts'

/** What comparability looks at: the benchmarks a run ran and its trials' task checksums. */
export interface ComparableSide {
  benchmarks: readonly BenchmarkInfo[]
  trials: readonly Pick<ScoredTrial, 'benchmark' | 'taskId' | 'taskChecksum'>[]
}

/** More changed tasks than this and the message names the first of them only. */
const MAX_NAMED = 10

/**
 * Refuses to compare runs of different benchmarks, runs that share no task, and runs in which a task of the same id
 * has different content: their verdict would be noise presented as evidence. A dataset that only gained or lost
 * tasks stays comparable over the tasks both runs share; the benchmarks whose dataset checksum changed are returned,
 * so the comparison can say so.
 */
export function checkComparable(
  baseline: ComparableSide,
  candidate: ComparableSide,
  force: boolean,
): { changedDatasets: string[] } {
  const problems: string[] = []
  const changedDatasets: string[] = []
  const known = new Map(baseline.benchmarks.map((b) => [b.id, b]))
  for (const b of candidate.benchmarks) {
    const base = known.get(b.id)
    if (!base) problems.push(`benchmark ${b.id} is not in the baseline (it has ${list(baseline.benchmarks)})`)
    else if (base.datasetChecksum !== b.datasetChecksum) changedDatasets.push(b.id)
  }
  if (problems.length === 0) {
    const before = checksums(baseline.trials)
    const after = checksums(candidate.trials)
    const shared = [...after.keys()].filter((k) => before.has(k))
    const changed = shared.filter((k) => {
      const [x, y] = [before.get(k)!, after.get(k)!]
      // Checksums are compared only where both runs recorded one.
      return x !== '' && y !== '' && x !== y
    })
    if (shared.length === 0) problems.push('the runs share no task (no benchmark and task id in common)')
    else if (changed.length > 0)
      problems.push(
        `${changed.length} of the ${shared.length} shared tasks changed content (their task checksums differ): ` +
          named(changed),
      )
  }
  if (problems.length === 0 || force) return { changedDatasets }
  throw new AgentEvalOpsError('COMPARE_MISMATCH', `the runs are not comparable: ${problems.join('; ')}.`, {
    hint: 'Compare against a baseline of the same benchmark whose shared tasks are unchanged, or pass --force (force: true) to compare the tasks they share anyway.',
  })
}

function checksums(trials: ComparableSide['trials']): Map<string, string> {
  const byTask = new Map<string, string>()
  for (const t of trials) if (!byTask.has(taskKey(t))) byTask.set(taskKey(t), t.taskChecksum)
  return byTask
}

function list(benchmarks: readonly BenchmarkInfo[]): string {
  return benchmarks.length === 0 ? 'none' : benchmarks.map((b) => b.id).join(', ')
}

function named(keys: readonly string[]): string {
  const shown = keys.slice(0, MAX_NAMED).join(', ')
  return keys.length > MAX_NAMED ? `${shown} and ${keys.length - MAX_NAMED} more` : shown
}
