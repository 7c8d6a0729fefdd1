import type { JsonObject, JsonValue } from '../../../core/index.ts'
import {
  definedOnly,
  isRecord,
  priceCall,
  tokenCount,
  totalTokens,
  type FormatContext,
  type FormatResult,
  type LineFormat,
} from './types.ts'

/** The `type`s of the generic vocabulary (docs/command-runner.md). */
export const GENERIC_TYPES = [
  'plan',
  'model_call',
  'tool_call',
  'tool_result',
  'observation',
  'final_answer',
] as const
type GenericType = (typeof GENERIC_TYPES)[number]

/**
 * Our own line vocabulary: one JSON object per line, `type` naming the trace event it stands for. A line that
 * breaks it is skipped and counted in one warning per kind of problem, never a failed trial.
 */
export function genericFormat({ ctx, notes }: FormatContext): LineFormat {
  let finalAnswer: string | null = null
  /** Tool names by call id, so a result may name its call instead of repeating the tool. */
  const toolsById = new Map<string, string>()

  const malformed = (type: string, why: string): void =>
    notes.count(`generic:malformed:${type}:${why}`, (n) => `skipped ${n} "${type}" line(s): ${why}`)

  const handlers: Record<GenericType, (line: JsonObject) => void> = {
    plan(line) {
      if (typeof line.text !== 'string') return malformed('plan', '"text" must be a string')
      ctx.emit('agent.plan', { text: line.text })
    },
    observation(line) {
      if (typeof line.text !== 'string') return malformed('observation', '"text" must be a string')
      ctx.emit('agent.observation', { text: line.text })
    },
    model_call(line) {
      if ([line.model, line.text, line.stop_reason].some(notString))
        return malformed('model_call', '"model", "text" and "stop_reason" must be strings when given')
      const model = stringOrUndefined(line.model)
      const given = line.cost_usd ?? undefined
      if (given !== undefined && !(typeof given === 'number' && Number.isFinite(given) && given >= 0))
        return malformed('model_call', '"cost_usd" must be a number ≥ 0 when given')
      const usage = {
        input_tokens: tokenCount(line.input_tokens),
        output_tokens: tokenCount(line.output_tokens),
        cache_creation_input_tokens: tokenCount(line.cache_creation_input_tokens),
        cache_read_input_tokens: tokenCount(line.cache_read_input_tokens),
      }
      const costUsd = given ?? priceCall(model, usage, notes, ' (give "cost_usd" on the line to count it)')
      ctx.emit(
        'agent.model_call',
        definedOnly({
          model,
          inputTokens: usage.input_tokens,
          outputTokens: usage.output_tokens,
          cacheCreationInputTokens: usage.cache_creation_input_tokens || undefined,
          cacheReadInputTokens: usage.cache_read_input_tokens || undefined,
          stopReason: stringOrUndefined(line.stop_reason),
          text: stringOrUndefined(line.text),
        }),
        { tokens: totalTokens(usage), costUsd },
      )
    },
    tool_call(line) {
      if (typeof line.tool !== 'string' || line.tool === '')
        return malformed('tool_call', '"tool" must be a non-empty string')
      const callId = callIdOf(line.id)
      if (callId === null) return malformed('tool_call', '"id" must be a string or a number when given')
      if (callId !== undefined) toolsById.set(callId, line.tool)
      ctx.emit('agent.tool_call', definedOnly({ tool: line.tool, args: line.args ?? {}, callId }))
    },
    tool_result(line) {
      const callId = callIdOf(line.id)
      if (callId === null) return malformed('tool_result', '"id" must be a string or a number when given')
      const tool =
        typeof line.tool === 'string' && line.tool !== ''
          ? line.tool
          : callId === undefined
            ? undefined
            : toolsById.get(callId)
      if (tool === undefined)
        return malformed('tool_result', 'no "tool", and no "id" of an earlier tool_call to take it from')
      const isError = line.is_error ?? undefined
      if (isError !== undefined && typeof isError !== 'boolean')
        return malformed('tool_result', '"is_error" must be a boolean when given')
      ctx.emit('agent.tool_result', definedOnly({ tool, result: line.result ?? null, isError, callId }))
    },
    final_answer(line) {
      if (typeof line.answer !== 'string') return malformed('final_answer', '"answer" must be a string')
      ctx.emit('agent.final_answer', { answer: line.answer })
      finalAnswer = line.answer
    },
  }

  return {
    line(value: JsonValue): void {
      if (!isRecord(value) || typeof value.type !== 'string') {
        notes.count(
          'generic:no-type',
          (n) => `skipped ${n} JSON line(s) that are not an object with a "type"`,
        )
        return
      }
      const type = value.type
      if (!(GENERIC_TYPES as readonly string[]).includes(type)) {
        notes.count(
          `generic:unknown:${type}`,
          (n) => `skipped ${n} line(s) of unknown type ${JSON.stringify(type)}`,
        )
        return
      }
      handlers[type as GenericType](value)
    },
    end(): void {},
    result: (): FormatResult => ({ finalAnswer }),
  }
}

/** JSON null counts as absent: many writers emit it for "not set". */
function notString(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null && typeof value !== 'string'
}

function stringOrUndefined(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** undefined when absent, null when present but unusable as an id. */
function callIdOf(value: JsonValue | undefined): string | undefined | null {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null
}
