/** How the timeline shows one trace event: who acted (model, tool, evaluator) and what happened, as text. */
export interface EventText {
  who: string
  text: string
  /** All of it, for the expand button, when the text is a flattened form (pretty JSON of arguments, results). */
  full?: string
}

type Payload = Record<string, unknown>

/** A payload field as text: nothing for a missing one, JSON for an object where a string was expected. */
export function str(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}

/** A payload value as text: strings as they are, anything else as JSON. */
export function json(value: unknown, pretty = false): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  return JSON.stringify(value, null, pretty ? 2 : 0)
}

export function describeEvent(kind: string, payload: unknown): EventText {
  const p: Payload = payload !== null && typeof payload === 'object' ? (payload as Payload) : {}
  const thrown = (t: unknown) => (t ? `, threw ${str((t as Payload).type)}` : '')
  switch (kind) {
    case 'agent.plan':
    case 'agent.observation':
      return { who: '', text: str(p.text) }
    case 'agent.model_call': {
      const parts: string[] = []
      if (p.status === 'error') {
        parts.push(
          `failed attempt${p.attempt ? ` ${str(p.attempt)}` : ''}${p.error ? `: ${str(p.error)}` : ''}`,
        )
      }
      if (p.inputTokens !== undefined || p.outputTokens !== undefined) {
        parts.push(`in ${str(p.inputTokens)} / out ${str(p.outputTokens)} tokens`)
      }
      if (p.stopReason) parts.push(`stop: ${str(p.stopReason)}`)
      if (p.text) parts.push(str(p.text))
      return { who: str(p.model), text: parts.join(' · ') }
    }
    case 'agent.tool_call':
      return { who: str(p.tool), text: `args: ${json(p.args)}`, full: json(p.args, true) }
    case 'agent.tool_result':
      return {
        who: str(p.tool),
        text: `${p.isError ? 'error: ' : 'result: '}${json(p.result)}`,
        full: json(p.result, true),
      }
    case 'agent.final_answer':
      return { who: '', text: str(p.answer) }
    case 'agent.terminal':
      return {
        who: '',
        text:
          str(p.terminatedBy) +
          (p.success ? ', success' : ', no success') +
          thrown(p.thrown) +
          (p.error ? `: ${str(p.error)}` : ''),
      }
    case 'evaluator.score':
      return {
        who: str(p.evaluatorId),
        text: `score ${str(p.score)}${p.passed ? ', passed' : ', failed'}${thrown(p.thrown)}`,
      }
    case 'evaluator.model_call':
      return {
        who: `${str(p.evaluatorId)} · ${str(p.model)}`,
        text: `${str(p.status)}, ${str(p.latencyMs)} ms${p.error ? `: ${str(p.error)}` : ''}`,
      }
    case 'policy.verdict':
      return { who: str(p.checkerId), text: str(p.verdict) }
    case 'cost.tick':
      return { who: '', text: str(p.note) }
    default:
      return { who: '', text: json(p), full: json(p, true) }
  }
}
