import type { TelemetryIntegration } from 'ai'
import { errorMessage } from '../../core/index.ts'
import { currentCallableTrial, type CallableTrial } from '../callable/index.ts'
import { toJson } from '../callable/to-json.ts'

// Per process, like the SDK's own registry of integrations (globalThis): a Vitest worker that loads this module
// again for another file must neither register twice nor lose track of the trials the first copy marked.
const STATE_KEY = Symbol.for('agentevalops.ai-sdk.tool-events')
interface State {
  registered: boolean
  /** Trials whose agent called a traced model: only their tool calls are traced here. */
  traced: WeakSet<CallableTrial>
}
const holder = globalThis as { [STATE_KEY]?: State }
const state = (holder[STATE_KEY] ??= { registered: false, traced: new WeakSet() })

/**
 * Adds our listener to the SDK's global telemetry integrations, once per process. At once, not at the first model
 * call: generateText reads the list when it starts. Through the global the SDK documents for it
 * (`AI_SDK_TELEMETRY_INTEGRATIONS`, what its registerTelemetryIntegration fills), since the SDK itself is not
 * loaded until a traced model is called.
 */
export function listenForToolCalls(): void {
  if (state.registered) return
  state.registered = true
  const registry = globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: TelemetryIntegration[] }
  ;(registry.AI_SDK_TELEMETRY_INTEGRATIONS ??= []).push(integration)
}

/**
 * Traces the AI SDK's tool calls of this trial: `agent.tool_call` as a tool starts, `agent.tool_result` as it
 * settles, from the SDK's telemetry hooks (which run in the trial's async scope), so the tools need no wrapping
 * and a loop that stops right after a tool still has that tool's result in the trace. A model call of the trial
 * comes first (it asked for the tools) and marks the trial.
 */
export function traceToolCalls(trial: CallableTrial): void {
  state.traced.add(trial)
}

const integration: TelemetryIntegration = {
  onToolCallStart(event) {
    const trial = tracedTrial()
    if (trial === undefined) return
    const { toolName, toolCallId } = event.toolCall
    const args = toJson(event.toolCall.input as unknown, 'args')
    trial.run.emit('agent.tool_call', {
      tool: toolName,
      args: args.value,
      callId: toolCallId,
      ...(args.note === undefined ? {} : { note: args.note }),
    })
  },
  onToolCallFinish(event) {
    const trial = tracedTrial()
    if (trial === undefined) return
    const { toolName, toolCallId } = event.toolCall
    if (!event.success) {
      trial.run.emit('agent.tool_result', {
        tool: toolName,
        result: { error: errorMessage(event.error) },
        isError: true,
        callId: toolCallId,
      })
      return
    }
    const result = toJson(event.output, 'result')
    trial.run.emit('agent.tool_result', {
      tool: toolName,
      result: result.value,
      callId: toolCallId,
      ...(result.note === undefined ? {} : { note: result.note }),
    })
  },
}

/** The running trial, when it traces its tools and can still take events (a stopped trial refuses them). */
function tracedTrial(): CallableTrial | undefined {
  const trial = currentCallableTrial()
  if (trial === undefined || !state.traced.has(trial) || trial.run.signal.aborted) return undefined
  return trial
}
