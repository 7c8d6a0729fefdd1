import type { JsonObject } from '../../core/index.ts'
import { currentCallableTrial, type CallableTrial, type ModelCallReport } from '../callable/index.ts'
import {
  generateFacts,
  generateFromJson,
  generateToJson,
  streamFacts,
  streamPartFromJson,
  streamPartToJson,
} from './replies.ts'
import { describeFailure, raiseRecorded, recordableFailure, type RecordedFailure } from './failures.ts'
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
      const reply = await recordedCall(trial, requestOf(model, params), model.modelId, async () => {
        const result = await doGenerate()
        return { result: { reply: generateToJson(result) }, ...generateFacts(result) }
      })
      return generateFromJson(reply)
    },
    wrapStream: async ({ doStream, params, model }) => {
      const trial = currentCallableTrial()
      if (trial === undefined) return doStream()
      traceToolCalls(trial)
      // The whole stream is read before the SDK sees it: a recording keeps the reply whole, and a replay (which
      // has no provider to stream from) hands it over the same way.
      const reply = await recordedCall(trial, requestOf(model, params), model.modelId, async () => {
        const { stream } = await doStream()
        const parts: StreamPart[] = []
        for await (const part of stream) parts.push(part)
        return { result: { reply: { parts: parts.map(streamPartToJson) } }, ...streamFacts(parts) }
      })
      return { stream: streamOf((reply.parts as JsonObject[]).map(streamPartFromJson)) }
    },
  }
}

/** What a recording keeps of one call: the reply, or the provider's refusal (replayed as the same error). */
type Outcome = { reply: JsonObject; failed?: undefined } | { failed: RecordedFailure; reply?: undefined }

/**
 * One call through the trial's recording gate. A provider's refusal is recorded too, as an error event: the SDK
 * retries it with the same request, and that retry is a second call of the same key, so a replay that did not know
 * of the first would answer the wrong one.
 */
async function recordedCall(
  trial: CallableTrial,
  request: JsonObject,
  model: string,
  run: () => Promise<ModelCallReport<Outcome>>,
): Promise<JsonObject> {
  const outcome = await trial.recordedCall<Outcome>(
    { model, request },
    async () => {
      try {
        return await run()
      } catch (e) {
        const failed = await recordableFailure(e)
        if (failed === undefined) throw e
        return { result: { failed } }
      }
    },
    ({ result }) => (result.failed === undefined ? undefined : describeFailure(result.failed)),
  )
  if (outcome.failed !== undefined) return raiseRecorded(outcome.failed)
  return outcome.reply
}

function streamOf(parts: readonly StreamPart[]): ReadableStream<StreamPart> {
  return new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
}
