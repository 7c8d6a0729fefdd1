import { passThroughGate, type ModelCallGate, type RunContext } from '../../core/index.ts'
import {
  abortableSleep,
  costOf,
  totalTokens,
  PRICES_AS_OF,
  type AttemptInfo,
  type CallMessagesOptions,
  type TokenUsage,
} from '../../models/index.ts'
import type { RateLimiter } from './rate-limiter.ts'

/*
 * One model turn of a tool-loop runner (the Anthropic and the OpenAI-compatible one), around the provider's call:
 * every HTTP attempt goes through the rate limiter and becomes an `agent.model_call` event, failed ones as they
 * happen, the one that answered once its reply is read, with its tokens and cost.
 */

/** What a runner's turns share, resolved by the runner. */
export interface TurnSettings {
  model: string
  maxAttempts: number
  timeoutMs: number | undefined
  retry: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs' | 'sleep'>
  limiter: RateLimiter | null
  redact: (text: string) => string
}

/** Per trial: what has been said once already. */
export interface TurnWarnings {
  costWarned: boolean
}

/**
 * The call options of turn `turn`: the trial's gate with the rate limit inside it, a retry's slot taken in the
 * wait before it, failed attempts emitted as they happen. `answered()` is the attempt that answered, once the call
 * has returned.
 */
export function turnAttempts(
  settings: TurnSettings,
  ctx: RunContext,
  turn: number,
): { options: CallMessagesOptions; answered: () => AttemptInfo | undefined } {
  const { limiter, redact, model } = settings
  const baseSleep = settings.retry.sleep ?? abortableSleep
  let answered: AttemptInfo | undefined
  const options: CallMessagesOptions = {
    signal: ctx.signal,
    gate: limitedGate(ctx, limiter),
    maxAttempts: settings.maxAttempts,
    timeoutMs: settings.timeoutMs,
    ...(settings.retry.baseDelayMs === undefined ? {} : { baseDelayMs: settings.retry.baseDelayMs }),
    ...(settings.retry.maxDelayMs === undefined ? {} : { maxDelayMs: settings.retry.maxDelayMs }),
    // The attempts loop sleeps exactly once before each retry: the place to take the retry's slot.
    sleep: async (ms, signal) => {
      await baseSleep(ms, signal)
      if (limiter) await limiter.acquire(signal)
    },
    onAttempt: (info) => {
      if (info.status === 'ok') {
        answered = info
        return
      }
      // Stopped by a limit or a cancel: the engine records that, and a stopped run takes no more events.
      if (ctx.signal.aborted) return
      ctx.emit(
        'agent.model_call',
        {
          model,
          status: 'error',
          attempt: info.attempt,
          turn,
          latencyMs: info.latencyMs,
          error: redact(info.error ?? 'failed'),
          ...(info.httpStatus === undefined ? {} : { httpStatus: info.httpStatus }),
          ...(info.retryInMs === undefined ? {} : { retryInMs: info.retryInMs }),
        },
        { tokens: 0, costUsd: 0 },
      )
    },
  }
  return { options, answered: () => answered }
}

/** The `agent.model_call` event of the attempt that answered: its tokens, list-price cost, stop reason and text. */
export function emitAnswered(
  settings: TurnSettings,
  ctx: RunContext,
  warnings: TurnWarnings,
  turn: number,
  answered: AttemptInfo | undefined,
  reply: { usage: TokenUsage; stopReason: string | null | undefined; text: string },
): void {
  const { model, redact } = settings
  const { usage } = reply
  const priced = costOf(model, usage)
  if (priced === null && !warnings.costWarned) {
    warnings.costWarned = true
    ctx.warn(
      `no price for model ${model}: cost recorded as 0 (unknown; not in the price table of ${PRICES_AS_OF})`,
    )
  }
  ctx.emit(
    'agent.model_call',
    {
      model,
      status: 'ok',
      attempt: answered?.attempt ?? 1,
      turn,
      latencyMs: answered?.latencyMs ?? 0,
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
      cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
      ...(reply.stopReason ? { stopReason: reply.stopReason } : {}),
      text: redact(reply.text),
      ...(priced === null ? { costUnknown: true } : {}),
    },
    { tokens: totalTokens(usage), costUsd: priced ?? 0 },
  )
}

/**
 * The trial's model-call gate (recording and replay), with the first attempt's rate-limit slot taken inside it:
 * only when a request is really sent, so a replayed exchange does not wait for one.
 */
function limitedGate(ctx: RunContext, limiter: RateLimiter | null): ModelCallGate {
  // A RunContext made by hand (outside the engine) may have no gate: calls then simply go out.
  const gate = (ctx.modelCalls as ModelCallGate | undefined) ?? passThroughGate
  if (!limiter) return gate
  return {
    exchange: (request, call) =>
      gate.exchange(request, async () => {
        await limiter.acquire(ctx.signal)
        return call()
      }),
  }
}
