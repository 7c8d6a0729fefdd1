import type { EmitUsage, RunContext, ScriptStep } from '../../core/index.ts'

/**
 * Emits one scripted step as the trace event it stands for; returns the answer when the step gives one. Steps
 * with side effects (write_file) are the runner's, not a replay.
 */
export function replayStep(
  step: Exclude<ScriptStep, { kind: 'write_file' }>,
  ctx: RunContext,
): string | null {
  const usage: EmitUsage = { tokens: step.tokens ?? 0, costUsd: step.costUsd ?? 0 }
  switch (step.kind) {
    case 'plan':
      ctx.emit('agent.plan', { text: step.text }, usage)
      return null
    case 'model_call':
      ctx.emit('agent.model_call', definedOnly({ text: step.text, model: step.model }), usage)
      return null
    case 'tool_call':
      ctx.emit('agent.tool_call', { tool: step.tool, args: step.args }, usage)
      return null
    case 'tool_result':
      ctx.emit(
        'agent.tool_result',
        definedOnly({ tool: step.tool, result: step.result, isError: step.isError }),
        usage,
      )
      return null
    case 'observation':
      ctx.emit('agent.observation', { text: step.text }, usage)
      return null
    case 'final_answer':
      ctx.emit('agent.final_answer', { answer: step.answer }, usage)
      return step.answer
    case 'throw':
      // What the agent spent before failing still counts against its budget.
      if (usage.tokens || usage.costUsd)
        ctx.emit('cost.tick', { note: 'spent before the scripted failure' }, usage)
      throw new Error(step.message)
  }
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
