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
  const limits = Object.freeze(tighterLimits(parseLimits(run), task && parseLimits(task)))
  checked.add(limits)
  return limits
}

// Limits this module checked or combined from checked ones: a trial handed them again (the plugin works them out
// to key the trial, then the engine runs under them) is not checked twice. Frozen, so they stay what was checked.
const checked = new WeakSet<ResourceLimits>()
// The user's own limits objects, by identity, with what they held when checked: the same object for every trial of
// a benchmark is checked once, and again only if it has changed since.
const userLimits = new WeakMap<object, { held: string; parsed: ResourceLimits }>()

/** The user's limits, checked once: a limits object that has been through here before is taken as it is. */
export function parseLimits(limits: ResourceLimits | undefined): ResourceLimits {
  if (limits === undefined) return NO_LIMITS
  if (checked.has(limits)) return limits
  const held = heldLimits(limits)
  const known = typeof limits === 'object' && limits !== null ? userLimits.get(limits) : undefined
  if (known !== undefined && known.held === held) return known.parsed
  const parsed = ResourceLimits.safeParse(limits)
  if (parsed.success) {
    const own = Object.freeze(parsed.data)
    checked.add(own)
    if (typeof limits === 'object' && limits !== null) userLimits.set(limits, { held, parsed: own })
    return own
  }
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `invalid resource limits: ${parsed.error.issues[0]?.message ?? ''}`,
    {
      hint: 'Limits are whole numbers of tokens and turns, seconds > 0 and dollars ≥ 0.',
    },
  )
}

const NO_LIMITS: ResourceLimits = Object.freeze({})
checked.add(NO_LIMITS)

/** What a limits object holds, as a cache key: its own keys and values (the schema strips any others). */
function heldLimits(limits: unknown): string {
  if (typeof limits !== 'object' || limits === null) return ''
  let held = ''
  for (const key of Object.keys(limits)) {
    const value: unknown = (limits as Record<string, unknown>)[key]
    held += `${key}=${typeof value}:${String(value)};`
  }
  return held
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
