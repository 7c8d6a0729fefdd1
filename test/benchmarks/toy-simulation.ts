import type { AgentScript, ResourceLimits, TerminatedBy } from '../../src/core/index.ts'
import { ev, type Draft } from '../evaluators/trace-fixture.ts'

export type LimitName = 'limit_tokens' | 'limit_cost' | 'limit_turns' | 'limit_time'

export interface Simulation {
  drafts: Draft[]
  terminatedBy: TerminatedBy
  finalAnswer: string | null
  /** Every limit over its maximum when the trial stopped: a well-made failure script crosses exactly one. */
  crossed: LimitName[]
  elapsedMs: number
}

/**
 * Replays a script the way the mock runner and engine are specified to: wait each step's delay (running out of wall
 * time before the step is emitted), emit it, then stop if tokens, cost or turns went over. Turns are model calls,
 * or tool calls + final answers for scripts without model calls.
 */
export function simulate(script: AgentScript, limits: ResourceLimits): Simulation {
  const drafts: Draft[] = []
  const countsModelCalls = script.steps.some((s) => s.kind === 'model_call')
  let tokens = 0
  let cost = 0
  let turns = 0
  let elapsedMs = 0
  let finalAnswer: string | null = null

  const over = (): LimitName[] => [
    ...(limits.maxTokens !== undefined && tokens > limits.maxTokens ? (['limit_tokens'] as const) : []),
    ...(limits.maxCostUsd !== undefined && cost > limits.maxCostUsd + 1e-9 ? (['limit_cost'] as const) : []),
    ...(limits.maxTurns !== undefined && turns > limits.maxTurns ? (['limit_turns'] as const) : []),
  ]
  const end = (terminatedBy: TerminatedBy, crossed: LimitName[]): Simulation => ({
    drafts: [...drafts, ev.terminal(terminatedBy, { atMs: elapsedMs })],
    terminatedBy,
    finalAnswer,
    crossed,
    elapsedMs,
  })

  for (const step of script.steps) {
    elapsedMs += step.delayMs ?? 0
    if (limits.maxWallSeconds !== undefined && elapsedMs > limits.maxWallSeconds * 1000) {
      elapsedMs = limits.maxWallSeconds * 1000
      return end('limit_time', ['limit_time', ...over()])
    }
    if (step.kind === 'throw') return end('agent_error', over())
    const u = { tokens: step.tokens, costUsd: step.costUsd, atMs: elapsedMs }
    switch (step.kind) {
      case 'plan':
        drafts.push(ev.plan(step.text, u))
        break
      case 'model_call':
        drafts.push({ kind: 'agent.model_call', payload: { model: step.model, text: step.text }, ...u })
        break
      case 'tool_call':
        drafts.push(ev.call(step.tool, step.args, u))
        break
      case 'tool_result':
        drafts.push(ev.result(step.tool, step.result, u))
        break
      case 'observation':
        drafts.push({ kind: 'agent.observation', payload: { text: step.text }, ...u })
        break
      case 'final_answer':
        drafts.push(ev.answer(step.answer, u))
        finalAnswer = step.answer
        break
    }
    tokens += step.tokens ?? 0
    cost += step.costUsd ?? 0
    if (
      countsModelCalls
        ? step.kind === 'model_call'
        : step.kind === 'tool_call' || step.kind === 'final_answer'
    )
      turns++
    const crossed = over()
    const [first] = crossed
    if (first) {
      finalAnswer = null
      return end(first, crossed)
    }
  }
  return end(script.success === false ? 'agent_error' : 'completed', [])
}
