import {
  AgentEvalOpsError,
  errorMessage,
  isAgentEvalOpsError,
  type JsonObject,
  type JsonValue,
  type RunContext,
} from '../../core/index.ts'
import { mergeInfo, modelCallEvent, type ModelCallOutcome } from './model-call.ts'
import { modelRequestBody, replyFacts, toResponse, type RecordedReply } from './model-fetch.ts'
import { toJson } from './to-json.ts'
import type {
  CallableContext,
  CallableUsage,
  ModelCallInfo,
  ModelCallReport,
  RemainingBudget,
  ToolCallOptions,
} from './types.ts'

/** A CallableContext over one trial's RunContext, plus what the runner needs to know once the agent returns. */
export interface CallableSession {
  readonly context: CallableContext
  /** The last answer given through `ctx.answer()`, or null when none was. */
  readonly answer: string | null
  readonly answered: boolean
  /**
   * The first recording error a `ctx` call raised (a replay with no recording, a call that cannot be recorded).
   * An SDK may wrap or swallow it; the runner raises it once the agent is done, so the trial ends on it.
   */
  readonly recordingError: AgentEvalOpsError | undefined
  /**
   * `ctx.modelCall(info, run)` with a say in what counts as a failed call: a report `failure` names is recorded
   * (and replayed) as it is, and its event has `status: 'error'` and no turn. For wrappers that keep failed calls
   * in the recording, so a replay retries where the recorded run did.
   */
  /**
   * Keeps a recording error raised by a call the harness makes for the agent outside `ctx` (an MCP tool's
   * recorded result), so the trial ends on it even when the agent swallows it.
   */
  readonly noteRecordingError: (e: unknown) => void
  readonly recordedCall: <T>(
    info: ModelCallInfo,
    run: () => Promise<ModelCallReport<T>>,
    failure: (report: ModelCallReport<T>) => string | undefined,
  ) => Promise<T>
}

/**
 * Builds the context handed to a wrapped agent. Its methods are closures, not methods of a class, so an agent
 * may destructure them (`const { toolCall } = ctx`) or pass them around.
 */
export function createSession(ctx: RunContext): CallableSession {
  let callCount = 0
  let lastAnswer: string | null = null
  let answered = false
  const unpricedModels = new Set<string>()
  let recordingError: AgentEvalOpsError | undefined
  let warnedUnkeyed = false

  /** Remembers a recording error on its way to the agent, so an SDK that wraps it cannot hide it. */
  const noted = (e: unknown): unknown => {
    if (
      recordingError === undefined &&
      (isAgentEvalOpsError(e, 'RECORDING_MISSING') || isAgentEvalOpsError(e, 'RECORDING_UNKEYED'))
    )
      recordingError = e
    return e
  }

  /**
   * A call the gate cannot key (no request, or one reported after it happened) is refused where recordings are
   * required and warned about where they are merely on: never silently left out of them.
   */
  const checkUnkeyed = (model: string, form: 'report' | 'wrap'): void => {
    const policy = ctx.modelCalls.unkeyed
    if (policy === undefined) return
    const what =
      form === 'report'
        ? `ctx.modelCall(${JSON.stringify(model)}) reports a call made outside the harness, which cannot be recorded`
        : `ctx.modelCall(${JSON.stringify(model)}, run) has no \`request\`, so its call cannot be recorded`
    if (policy.action === 'warn') {
      if (warnedUnkeyed) return
      warnedUnkeyed = true
      ctx.warn(`${what}: ${policy.because}. ${UNKEYED_HINT}`)
      return
    }
    throw noted(
      new AgentEvalOpsError('RECORDING_UNKEYED', `${what}, and ${policy.because}.`, { hint: UNKEYED_HINT }),
    )
  }

  /** Once the trial is stopped, every method fails with the stop reason, as the engine's own emit does. */
  const throwIfStopped = (): void => {
    if (ctx.signal.aborted) throw ctx.signal.reason
  }

  const usage = (): CallableUsage => {
    const used = ctx.usage()
    const { maxTokens, maxCostUsd, maxTurns, maxWallSeconds } = ctx.limits
    const remaining: RemainingBudget = {
      tokens: left(maxTokens, used.tokens),
      costUsd: left(maxCostUsd, used.costUsd),
      turns: left(maxTurns, used.turns),
      seconds: left(maxWallSeconds, used.wallSeconds),
    }
    return { ...used, remaining }
  }

  const toolCall = async <A, T>(
    name: string,
    args: A,
    run: (args: A) => T | Promise<T>,
    options: ToolCallOptions = {},
  ): Promise<Awaited<T>> => {
    const callId = options.callId ?? `call_${++callCount}`
    const recordedArgs = toJson(args, 'args')
    ctx.emit('agent.tool_call', {
      tool: name,
      args: recordedArgs.value,
      callId,
      ...(recordedArgs.note === undefined ? {} : { note: recordedArgs.note }),
    })
    let result: Awaited<T>
    try {
      result = await untilStopped(ctx.signal, async () => run(args))
    } catch (e) {
      throwIfStopped()
      ctx.emit('agent.tool_result', { tool: name, result: { error: errorMessage(e) }, isError: true, callId })
      throw e
    }
    const recorded = toJson(result, 'result')
    ctx.emit('agent.tool_result', {
      tool: name,
      result: recorded.value,
      callId,
      ...(recorded.note === undefined ? {} : { note: recorded.note }),
    })
    return result
  }

  const recordModelCall = (info: ModelCallInfo, outcome: ModelCallOutcome): number => {
    // Plain-JavaScript agents get a clear message rather than a crash inside the price lookup.
    if (typeof (info as Partial<ModelCallInfo> | null)?.model !== 'string') {
      throw new TypeError(
        'ctx.modelCall: info.model must be the model id, e.g. { model: "claude-haiku-4-5" }',
      )
    }
    const event = modelCallEvent(info, outcome)
    if (event.unpriced && !unpricedModels.has(info.model)) {
      unpricedModels.add(info.model)
      ctx.warn(
        `no price for model ${JSON.stringify(info.model)}: its calls are recorded at $0 (pass costUsd to ctx.modelCall to set their cost)`,
      )
    }
    return ctx.emit('agent.model_call', event.payload, event.usage)
  }

  /**
   * The call through the trial's recording gate: on replay the recorded report comes back without `run`. A
   * report that is not JSON cannot be recorded, which the TypeError says rather than a silent mismatch later.
   */
  const recorded = async <T>(
    model: string,
    request: JsonObject,
    run: () => ModelCallReport<T> | Promise<ModelCallReport<T>>,
  ): Promise<ModelCallReport<T>> => {
    const exchange = await ctx.modelCalls.exchange({ model, ...request }, async () => {
      const report = await run()
      let response: JsonValue
      try {
        response = JSON.parse(JSON.stringify(report)) as JsonValue
      } catch (e) {
        throw new TypeError(`ctx.modelCall: a recorded call's report must be JSON (${errorMessage(e)})`)
      }
      return { response, attempts: [] }
    })
    return exchange.response as unknown as ModelCallReport<T>
  }

  /** `failure` tells a report that is a failed call (an HTTP error reply) from a good one. */
  const wrapModelCall = async <T>(
    info: ModelCallInfo,
    run: () => ModelCallReport<T> | Promise<ModelCallReport<T>>,
    failure?: (report: ModelCallReport<T>) => string | undefined,
  ): Promise<T> => {
    throwIfStopped()
    if (info.request === undefined) checkUnkeyed(info.model, 'wrap')
    const started = performance.now()
    const elapsed = (): number => Math.round(performance.now() - started)
    let report: ModelCallReport<T>
    try {
      report = await untilStopped(ctx.signal, async () =>
        info.request ? recorded(info.model, info.request, run) : run(),
      )
    } catch (e) {
      throwIfStopped()
      noted(e)
      recordModelCall(info, { status: 'error', error: errorMessage(e), latencyMs: elapsed() })
      throw e
    }
    if (report === null || typeof report !== 'object' || !('result' in report)) {
      throw new TypeError(
        `ctx.modelCall(${JSON.stringify(info.model)}): the wrapped function must return { result, inputTokens?, outputTokens?, … }, got ${report === null ? 'null' : typeof report}`,
      )
    }
    const { result, ...facts } = report
    const failed = failure?.(report)
    recordModelCall(mergeInfo(info, facts), {
      status: failed === undefined ? 'ok' : 'error',
      latencyMs: elapsed(),
      ...(failed === undefined ? {} : { error: failed }),
    })
    return result
  }

  /**
   * A fetch for the agent's model SDK: a request whose JSON body names a `model` is one model call, keyed by that
   * body (so recorded and replayed like any other), its usage read from the reply. A recording error becomes a
   * 400 reply, which SDKs neither retry nor hide; the runner then ends the trial on the error itself.
   */
  const modelFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = await modelRequestBody(input, init)
    if (request === undefined) return fetch(input, init)
    try {
      const reply = await wrapModelCall<RecordedReply>(
        { model: request.model, request },
        async () => {
          const response = await fetch(input, { ...init, signal: init?.signal ?? ctx.signal })
          const recordedReply: RecordedReply = {
            status: response.status,
            contentType: response.headers.get('content-type') ?? 'application/json',
            body: await response.text(),
          }
          return { result: recordedReply, ...replyFacts(recordedReply) }
        },
        ({ result }) => (result.status >= 400 ? `HTTP ${result.status}` : undefined),
      )
      return toResponse(reply)
    } catch (e) {
      if (!isAgentEvalOpsError(e, 'RECORDING_MISSING') && !isAgentEvalOpsError(e, 'RECORDING_UNKEYED'))
        throw e
      return new Response(
        JSON.stringify({ error: { type: 'agentevalops_error', code: e.code, message: e.message } }),
        {
          status: 400,
          headers: { 'content-type': 'application/json' },
        },
      )
    }
  }

  function modelCall(info: ModelCallInfo): number
  function modelCall<T>(
    info: ModelCallInfo,
    run: () => ModelCallReport<T> | Promise<ModelCallReport<T>>,
  ): Promise<T>
  function modelCall<T>(
    info: ModelCallInfo,
    run?: () => ModelCallReport<T> | Promise<ModelCallReport<T>>,
  ): number | Promise<T> {
    if (run === undefined) {
      checkUnkeyed((info as Partial<ModelCallInfo> | null)?.model ?? '?', 'report')
      return recordModelCall(info, { status: 'ok' })
    }
    return wrapModelCall(info, run)
  }

  const context: CallableContext = {
    signal: ctx.signal,
    limits: ctx.limits,
    usage,
    toolCall,
    modelCall,
    fetch: modelFetch,
    plan: (text) => ctx.emit('agent.plan', { text }),
    observe: (text) => ctx.emit('agent.observation', { text }),
    answer: (text) => {
      const step = ctx.emit('agent.final_answer', { answer: text })
      lastAnswer = text
      answered = true
      return step
    },
    warn: (message) => ctx.warn(message),
  }

  return {
    context,
    get answer() {
      return lastAnswer
    },
    get answered() {
      return answered
    },
    get recordingError() {
      return recordingError
    },
    noteRecordingError: (e) => void noted(e),
    recordedCall: wrapModelCall,
  }
}

const UNKEYED_HINT =
  'Make the call through ctx so it is keyed by what it sends: give your SDK `fetch: ctx.fetch` (e.g. ' +
  '`createOpenAI({ fetch: ctx.fetch })`, `new OpenAI({ fetch: ctx.fetch })`), or pass the request you send as ' +
  "`request`: `ctx.modelCall({ model, request: { model, messages, tools, max_tokens } }, run)` (run's report " +
  'must then be JSON). Or set AGENTEVALOPS_RECORD=off to make every call live.'

function left(limit: number | undefined, used: number): number | undefined {
  return limit === undefined ? undefined : Math.max(0, limit - used)
}

/**
 * Runs `work`, but rejects with the signal's reason as soon as the trial is stopped: a tool or SDK that ignores
 * the signal must not keep the agent waiting on a trial that is already over.
 */
function untilStopped<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error)
    signal.addEventListener('abort', onAbort, { once: true })
    work().then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: Error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
