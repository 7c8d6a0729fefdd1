import { TERMINATED_BY, TRIAL_OUTCOMES, type RunnerInfo, type SummarySettings } from '../../src/core/index.ts'
import type { SummarizedTrial } from '../../src/scorers/index.ts'
import { seededRandom } from '../../src/scorers/stats/index.ts'

/**
 * Trials of every shape the statistics branch on: several benchmarks and targets, tasks with and without a category,
 * 1–5 trials, evaluators missing from some trials and twice in others, errors, infra outcomes, no agent result.
 * Shuffled, so that only the statistics' own ordering can make the figures agree.
 */
export function randomTrials(seed: number): SummarizedTrial[] {
  const random = seededRandom(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const runners: RunnerInfo[] = [
    { name: 'agent', kind: 'scripted', config: { model: 'small' } },
    { name: 'agent', kind: 'scripted', config: { model: 'large' } },
    { name: 'other', kind: 'recorded', config: {} },
  ]
  const trials: SummarizedTrial[] = []
  // A task's labels are the task's: the same for each of its trials, wherever they come in the run.
  const labelSets = Array.from({ length: 25 }, (): Record<string, string> =>
    random() < 0.7 ? { category: pick(['math', 'tools', 'web']) } : {},
  )
  const tasks = 1 + Math.floor(random() * 40)
  for (let task = 0; task < tasks; task++) {
    const benchmark = { id: pick(['alpha', 'beta']) }
    const labels = labelSets[task % 25]!
    const count = 1 + Math.floor(random() * 5)
    for (let trial = 0; trial < count; trial++) {
      const passed = random() < 0.55
      const scores: SummarizedTrial['scores'][number][] = []
      for (const evaluatorId of ['exact', 'judge', 'tools']) {
        if (random() < 0.2) continue
        const score = random() < 0.4 ? Math.round(random()) : random()
        scores.push({
          evaluatorId,
          kind: evaluatorId === 'judge' ? 'llm_judge' : 'deterministic',
          score,
          passed: random() < 0.6,
          error: random() < 0.1 ? 'judge unreachable' : null,
        })
      }
      if (random() < 0.1)
        scores.push({ evaluatorId: 'exact', kind: 'deterministic', score: 0.25, passed: false, error: null })
      trials.push({
        benchmark,
        taskId: `task-${String(task % 25).padStart(2, '0')}`,
        trial,
        labels,
        passed,
        outcome: passed ? 'passed' : pick(TRIAL_OUTCOMES),
        result: random() < 0.2 ? null : { terminatedBy: pick(TERMINATED_BY) },
        scores,
        usage: {
          tokens: Math.floor(random() * 1000),
          costUsd: random() / 100,
          wallSeconds: random() * 10,
          turns: Math.floor(random() * 5),
        },
        runner: pick(runners),
      })
    }
  }
  for (let i = trials.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[trials[i], trials[j]] = [trials[j]!, trials[i]!]
  }
  return trials
}

export function settingsFor(seed: number): SummarySettings {
  return {
    confidence: seed % 2 === 0 ? 0.95 : 0.9,
    reducer: (['mean', 'max', 'min', 'median'] as const)[seed % 4]!,
    errorPolicy: seed % 8 < 4 ? 'count-as-failure' : 'exclude',
    clusterBy: seed % 3 === 0 ? null : 'category',
    bootstrap: { resamples: 200, seed },
  }
}
