import type { JsonObject } from '../../core/index.ts'
import { currentCallableTrial, type CallableTrial } from '../callable/index.ts'
import {
  generateFacts,
  generateFromJson,
  generateToJson,
  streamFacts,
  streamPartFromJson,
  streamPartToJson,
} from './replies.ts'
import { requestOf } from './request.ts'
import { listenForToolCalls, traceToolCalls } from './tool-events.ts'
import type { LanguageModelMiddleware, StreamPart } from './types.ts'

/**
 * The AI SDK middleware behind `traced()`, for `wrapLanguageModel({ model, middleware: [yours, agentEvalOpsMiddleware()] })`.
 * Inside a callableRunner agent each model call goes through the trial's `ctx.modelCall` keyed by the request the
 * SDK built: an `agent.model_call` event with its tokens, cost and stop reason, the trial's limits checked as it
 * lands, recorded and replayed (AGENTEVALOPS_RECORD) without calling the provider; the trial's signal aborts it.
 * The SDK's tool calls become `agent.tool_call` / `agent.tool_result` events. Outside a trial the model is
 * untouched, so the same agent code runs in production.
 */
export function agentEvalOpsMiddleware(): LanguageModelMiddleware {
  listenForToolCalls()
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      const trial = currentCallableTrial()
      if (trial === undefined) return params
      const own = params.abortSignal
      return { ...params, abortSignal: own ? AbortSignal.any([own, trial.run.signal]) : trial.run.signal }
    },
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const trial = currentCallableTrial()
      if (trial === undefined) return doGenerate()
      traceToolCalls(trial)
      const recorded = await modelCall(trial, requestOf(model, params), model.modelId, async () => {
        const result = await doGenerate()
        return { result: generateToJson(result), ...generateFacts(result) }
      })
      return generateFromJson(recorded)
    },
    wrapStream: async ({ doStream, params, model }) => {
      const trial = currentCallableTrial()
      if (trial === undefined) return doStream()
      traceToolCalls(trial)
      // The whole stream is read before the SDK sees it: a recording keeps the reply whole, and a replay (which
      // has no provider to stream from) hands it over the same way.
      const recorded = await modelCall(trial, requestOf(model, params), model.modelId, async () => {
        const { stream } = await doStream()
        const parts: StreamPart[] = []
        for await (const part of stream) parts.push(part)
        return { result: { parts: parts.map(streamPartToJson) }, ...streamFacts(parts) }
      })
      return { stream: streamOf((recorded.parts as JsonObject[]).map(streamPartFromJson)) }
    },
  }
}

function modelCall(
  trial: CallableTrial,
  request: JsonObject,
  model: string,
  run: () => Promise<{ result: JsonObject }>,
): Promise<JsonObject> {
  return trial.context.modelCall({ model, request }, run)
}

function streamOf(parts: readonly StreamPart[]): ReadableStream<StreamPart> {
  return new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
}
