import {
  checksumOf,
  type BenchmarkInfo,
  type Evaluator,
  type PolicyChecker,
  type RunnerInfo,
  type TaskSpec,
} from '../core/index.ts'

export interface TrialKeys {
  /** What the agent's part depends on: the task as it is, the trial index, the runner as configured. */
  agent: string
  /** What the whole record depends on: the agent's part, and every evaluator's and policy checker's settings. */
  score: string
}

export interface TrialKeyInput {
  benchmark: Pick<BenchmarkInfo, 'id'>
  task: Pick<TaskSpec, 'id' | 'checksum'>
  trial: number
  runner: RunnerInfo
  evaluators?: readonly Pick<Evaluator, 'id' | 'kind' | 'config'>[] | undefined
  policy?: readonly Pick<PolicyChecker, 'id' | 'config'>[] | undefined
  /** The benchmark version whose grade() scores the trial, when it has one: a new grader re-scores. */
  grader?: string | undefined
}

/** The keys a resumed run matches earlier trials by (see TrialRecord.keys). */
export function trialKeys(input: TrialKeyInput): TrialKeys {
  const agent = checksumOf({
    benchmark: input.benchmark.id,
    task: input.task.id,
    taskChecksum: input.task.checksum,
    trial: input.trial,
    runner: input.runner,
  })
  const score = checksumOf({
    agent,
    evaluators: (input.evaluators ?? []).map((e) => ({ id: e.id, kind: e.kind, config: e.config ?? null })),
    policy: (input.policy ?? []).map((p) => ({ id: p.id, config: p.config ?? null })),
    // Only when there is a grader, so the keys of benchmarks without one stay what earlier runs stored.
    ...(input.grader === undefined ? {} : { grader: input.grader }),
  })
  return { agent, score }
}
