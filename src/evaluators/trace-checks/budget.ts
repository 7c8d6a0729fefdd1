import { HARNESS_EVENT_KINDS, type AgentResult, type TraceEvent } from '../../core/index.ts'
import { type CheckResult } from './result.ts'

export interface Budget {
  tokens?: number
  costUsd?: number
  seconds?: number
  turns?: number
}

export type BudgetInput =
  readonly TraceEvent[] | { events: readonly TraceEvent[]; result?: Pick<AgentResult, 'wallSeconds'> | null }

// Evaluator scores and policy verdicts are the harness's own work (an LLM judge has a cost of its own): they do not
// count against the agent's budget.
const HARNESS_KINDS = new Set<TraceEvent['kind']>(HARNESS_EVENT_KINDS)

// Float sums like 0.1 + 0.2 must not count as crossing a 0.3 budget.
const EPSILON = 1e-9

interface Dimension {
  label: string
  limit: number
  used: number
  /** First step at which the running total went over the limit. */
  crossedAt: number | undefined
  format: (n: number) => string
}

/** Running total over the events, and the first step where it exceeds `limit`. */
function accumulate(
  events: readonly TraceEvent[],
  limit: number,
  amount: (e: TraceEvent) => number,
): Pick<Dimension, 'used' | 'crossedAt'> {
  let used = 0
  let crossedAt: number | undefined
  for (const e of events) {
    used += amount(e)
    if (crossedAt === undefined && used > limit + EPSILON) crossedAt = e.step
  }
  return { used, crossedAt }
}

/**
 * A turn is one model call. Runners that do not report model calls (scripted or CLI agents) still take turns, so
 * then each tool call or final answer counts as one.
 */
function turnCounter(events: readonly TraceEvent[]): (e: TraceEvent) => number {
  const hasModelCalls = events.some((e) => e.kind === 'agent.model_call')
  return hasModelCalls
    ? (e) => (e.kind === 'agent.model_call' && e.payload.status !== 'error' ? 1 : 0)
    : (e) => (e.kind === 'agent.tool_call' || e.kind === 'agent.final_answer' ? 1 : 0)
}

/**
 * The engine's measured wall time wins: `result.wallSeconds` when given, else the one its terminal event carries
 * (the first event comes after the trial started, so event timestamps under-count). Without either, wall time
 * runs from the first event to the terminal one (or the last event).
 */
function seconds(events: readonly TraceEvent[], limit: number, wallSeconds: number | undefined) {
  const first = events[0]
  const start = first ? Date.parse(first.ts) : 0
  const elapsed = (e: TraceEvent) => (Date.parse(e.ts) - start) / 1000
  const end = events.find((e) => e.kind === 'agent.terminal') ?? events.at(-1)
  const terminal = events.find((e) => e.kind === 'agent.terminal')
  const recorded =
    terminal && typeof terminal.payload.wallSeconds === 'number' ? terminal.payload.wallSeconds : undefined
  const used = wallSeconds ?? recorded ?? (end ? elapsed(end) : 0)
  if (used <= limit + EPSILON) return { used, crossedAt: undefined }
  const crossing = events.find((e) => elapsed(e) > limit + EPSILON) ?? end
  return { used, crossedAt: crossing?.step }
}

const usd = (n: number) => `$${n.toFixed(4)}`
const plain = (n: number) => String(Math.round(n * 1000) / 1000)

/** Passes when the trace stays within every given budget; a failure names the step where each one was crossed. */
export function checkWithinBudget(input: BudgetInput, budget: Budget): CheckResult {
  const all = 'events' in input ? input.events : input
  const wallSeconds = 'events' in input ? input.result?.wallSeconds : undefined
  const events = [...all].sort((a, b) => a.step - b.step)
  const agentEvents = events.filter((e) => !HARNESS_KINDS.has(e.kind))

  const dims: Dimension[] = []
  if (budget.tokens !== undefined) {
    const r = accumulate(agentEvents, budget.tokens, (e) => e.tokensDelta)
    dims.push({ label: 'tokens', limit: budget.tokens, format: plain, ...r })
  }
  if (budget.costUsd !== undefined) {
    const r = accumulate(agentEvents, budget.costUsd, (e) => e.costDeltaUsd)
    dims.push({ label: 'cost', limit: budget.costUsd, format: usd, ...r })
  }
  if (budget.turns !== undefined) {
    const r = accumulate(agentEvents, budget.turns, turnCounter(agentEvents))
    dims.push({ label: 'turns', limit: budget.turns, format: plain, ...r })
  }
  if (budget.seconds !== undefined) {
    const r = seconds(events, budget.seconds, wallSeconds)
    dims.push({ label: 'seconds', limit: budget.seconds, format: plain, ...r })
  }

  const over = dims.filter((d) => d.crossedAt !== undefined || d.used > d.limit + EPSILON)
  if (over.length === 0) {
    const usage = dims.map((d) => `${d.label} ${d.format(d.used)}/${d.format(d.limit)}`).join(', ')
    return { pass: true, message: `within budget (${usage || 'no budget given'})`, steps: [] }
  }
  const message = over
    .map((d) => {
      const where = d.crossedAt === undefined ? '' : ` (crossed at step ${d.crossedAt})`
      return `${d.label} ${d.format(d.used)} > ${d.format(d.limit)}${where}`
    })
    .join('; ')
  const steps = [...new Set(over.flatMap((d) => (d.crossedAt === undefined ? [] : [d.crossedAt])))].sort(
    (a, b) => a - b,
  )
  return { pass: false, message: `over budget: ${message}`, steps }
}
