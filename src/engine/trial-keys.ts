import {
  checksumOf,
  sha256,
  type BenchmarkInfo,
  type Evaluator,
  type PolicyChecker,
  type ResourceLimits,
  type RunnerInfo,
  type TaskSpec,
  type TrialKeyParts,
} from '../core/index.ts'

export interface TrialKeys {
  /** What the agent's part depends on: the task as it is, the trial index, the runner as configured, the limits. */
  agent: string
  /** What the whole record depends on: the agent's part, and every evaluator's and policy checker's settings. */
  score: string
  /** Each of those, hashed on its own: what a resume names when a key no longer matches. */
  parts: TrialKeyParts
}

export interface TrialKeyInput {
  benchmark: Pick<BenchmarkInfo, 'id'>
  task: Pick<TaskSpec, 'id' | 'checksum'>
  trial: number
  runner: RunnerInfo
  /** The limits the trial runs under: the run's and the benchmark's own for the task, combined (tighterLimits). */
  limits: ResourceLimits
  evaluators?: readonly Pick<Evaluator, 'id' | 'kind' | 'config'>[] | undefined
  policy?: readonly Pick<PolicyChecker, 'id' | 'config'>[] | undefined
  /** The benchmark version whose grade() scores the trial, when it has one: a new grader re-scores. */
  grader?: string | undefined
}

/** The parts of the agent key, and what a resume says when one of them differs. */
export const AGENT_KEY_PARTS = {
  task: 'task changed',
  runner: 'runner config changed',
  limits: 'limits changed',
} as const satisfies Partial<Record<keyof TrialKeyParts, string>>

/** The parts of the score key besides the agent key. */
export const SCORE_KEY_PARTS = {
  evaluators: 'evaluators changed',
  policy: 'policy changed',
  grader: 'grader changed',
} as const satisfies Partial<Record<keyof TrialKeyParts, string>>

/** What is the same for every trial of a benchmark: keyed once, not once per trial. */
export type SharedKeyInput = Pick<TrialKeyInput, 'benchmark' | 'runner' | 'evaluators' | 'policy' | 'grader'>

/** What differs between the trials of a benchmark. */
export type OwnKeyInput = Pick<TrialKeyInput, 'task' | 'trial' | 'limits'>

/**
 * The keys a resumed run matches earlier trials by (see TrialRecord.keys). Keys from before they had parts never
 * equal these: those bundles did not key limits or the scripted runner's scripts, so their trials run again rather
 * than be taken over on a guess.
 */
export function trialKeys(input: TrialKeyInput): TrialKeys {
  return benchmarkKeys(input)(input)
}

/**
 * trialKeys for the trials of one benchmark: the runner's, evaluators', policy's and grader's parts are hashed here,
 * once; per trial only the task's, the limits' (once per limits object) and the two keys over the parts.
 */
export function benchmarkKeys(shared: SharedKeyInput): (own: OwnKeyInput) => TrialKeys {
  const runner = checksumOf(shared.runner)
  const evaluators = checksumOf(
    (shared.evaluators ?? []).map((e) => ({ id: e.id, kind: e.kind, config: e.config ?? null })),
  )
  const policy = checksumOf((shared.policy ?? []).map((p) => ({ id: p.id, config: p.config ?? null })))
  const grader = checksumOf(shared.grader ?? null)
  const benchmarkId = shared.benchmark.id
  // Most benchmarks run every trial under one limits object (trialLimits freezes what it returns, so it cannot
  // change under the cache); a task's own limits make one per task.
  let lastLimits: ResourceLimits | undefined
  let lastLimitsKey = ''
  const limitsKey = (limits: ResourceLimits): string => {
    if (limits === lastLimits) return lastLimitsKey
    const key = checksumOf(limits)
    if (Object.isFrozen(limits)) [lastLimits, lastLimitsKey] = [limits, key]
    return key
  }
  return ({ task, trial, limits }) => {
    // checksumOf of objects whose values are strings and a number: keys written in sorted order make plain JSON the
    // canonical JSON, without canonicalJson's sorting walk.
    const parts: TrialKeyParts = {
      task: sha256(JSON.stringify({ benchmark: benchmarkId, checksum: task.checksum, task: task.id })),
      runner,
      limits: limitsKey(limits),
      evaluators,
      policy,
      grader,
    }
    const agent = sha256(JSON.stringify({ limits: parts.limits, runner, task: parts.task, trial }))
    const score = sha256(JSON.stringify({ agent, evaluators, grader, policy }))
    return { agent, score, parts }
  }
}

/**
 * Why an earlier trial cannot be taken over as the new keys say: the parts of the agent key that differ, worded for
 * the console. Empty when they all match (then only the score may differ, which a re-score handles).
 */
export function agentKeyChanges(earlier: { parts?: TrialKeyParts | undefined }, now: TrialKeys): string[] {
  if (!earlier.parts) return ['its bundle predates limits and runner scripts in the reuse key']
  return changes(AGENT_KEY_PARTS, earlier.parts, now.parts)
}

/** The parts of the score key that differ between an earlier trial and now, worded for the console. */
export function scoreKeyChanges(earlier: { parts?: TrialKeyParts | undefined }, now: TrialKeys): string[] {
  return earlier.parts ? changes(SCORE_KEY_PARTS, earlier.parts, now.parts) : []
}

function changes(
  reasons: Partial<Record<keyof TrialKeyParts, string>>,
  earlier: TrialKeyParts,
  now: TrialKeyParts,
): string[] {
  return Object.entries(reasons)
    .filter(([part]) => earlier[part as keyof TrialKeyParts] !== now[part as keyof TrialKeyParts])
    .map(([, reason]) => reason)
}
