import { AgentEvalOpsError, ResourceLimits, type TerminatedBy, type TraceEventKind } from '../core/index.ts'

export type LimitTermination = Extract<
  TerminatedBy,
  'limit_tokens' | 'limit_turns' | 'limit_time' | 'limit_cost'
>

const LIMIT_TERMINATIONS: ReadonlySet<TerminatedBy> = new Set<LimitTermination>([
  'limit_tokens',
  'limit_turns',
  'limit_time',
  'limit_cost',
])

export function isLimitTermination(t: TerminatedBy): t is LimitTermination {
  return LIMIT_TERMINATIONS.has(t)
}

/**
 * What a trial has used so far, as the engine measures it from the events the runner emits.
 *
 * Turns: the number of `agent.model_call` events. A runner that never reports model calls is counted by its
 * actions instead (`agent.tool_call` + `agent.final_answer`), so a turn limit still means something for it.
 */
export class UsageMeter {
  tokens = 0
  costUsd = 0
  private modelCalls = 0
  private actions = 0

  get turns(): number {
    return this.modelCalls > 0 ? this.modelCalls : this.actions
  }

  add(kind: TraceEventKind, tokens: number, costUsd: number, failedAttempt = false): void {
    this.tokens += tokens
    this.costUsd += costUsd
    // A failed attempt (a 429 retried) is in the trace for the record, but the agent took no turn.
    if (kind === 'agent.model_call') this.modelCalls += failedAttempt ? 0 : 1
    else if (kind === 'agent.tool_call' || kind === 'agent.final_answer') this.actions++
  }
}

/** Limit by limit, the tighter of the run's and a task's own (a limit only one of them sets holds as it is). */
export function tighterLimits(run: ResourceLimits, task: ResourceLimits | undefined): ResourceLimits {
  if (!task) return run
  const tighter = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b)
  const out: ResourceLimits = {}
  const set = (key: keyof ResourceLimits) => {
    const value = tighter(run[key], task[key])
    if (value !== undefined) out[key] = value
  }
  set('maxTokens')
  set('maxTurns')
  set('maxWallSeconds')
  set('maxCostUsd')
  return out
}

/**
 * The limits a trial runs under: the run's and the benchmark's own for the task, each checked, the tighter of each
 * applying. The engine enforces these and a trial's reuse key holds them: a resume under other limits runs again.
 */
export function trialLimits(
  run: ResourceLimits | undefined,
  task: ResourceLimits | undefined,
): ResourceLimits {
  return tighterLimits(parseLimits(run), task && parseLimits(task))
}

function parseLimits(limits: ResourceLimits | undefined): ResourceLimits {
  const parsed = ResourceLimits.safeParse(limits ?? {})
  if (parsed.success) return parsed.data
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `invalid resource limits: ${parsed.error.issues[0]?.message ?? ''}`,
    {
      hint: 'Limits are whole numbers of tokens and turns, seconds > 0 and dollars ≥ 0.',
    },
  )
}

/** The first limit that usage has gone past (strictly: reaching a limit exactly is still within it). */
export function exceededLimit(limits: ResourceLimits, usage: UsageMeter): LimitTermination | null {
  if (limits.maxTokens !== undefined && usage.tokens > limits.maxTokens) return 'limit_tokens'
  if (limits.maxCostUsd !== undefined && usage.costUsd > limits.maxCostUsd) return 'limit_cost'
  if (limits.maxTurns !== undefined && usage.turns > limits.maxTurns) return 'limit_turns'
  return null
}

export function limitMessage(limit: LimitTermination, limits: ResourceLimits, usage: UsageMeter): string {
  switch (limit) {
    case 'limit_tokens':
      return `token limit reached: ${usage.tokens} tokens used, maxTokens is ${limits.maxTokens}`
    case 'limit_cost':
      return `cost limit reached: $${usage.costUsd.toFixed(6)} spent, maxCostUsd is ${limits.maxCostUsd}`
    case 'limit_turns':
      return `turn limit reached: ${usage.turns} turns taken, maxTurns is ${limits.maxTurns}`
    case 'limit_time':
      return `time limit reached: maxWallSeconds is ${limits.maxWallSeconds}`
  }
}

/** Calls `onExpire` when the wall-time limit passes; returns the function that cancels it. */
export function startWallClock(limits: ResourceLimits, onExpire: () => void): () => void {
  if (limits.maxWallSeconds === undefined) return () => {}
  const timer = setTimeout(onExpire, limits.maxWallSeconds * 1000)
  return () => clearTimeout(timer)
}
