import {
  AgentEvalOpsError,
  JsonObject,
  type AgentOutput,
  type AgentRunner,
  type RunnerInfo,
} from '../../core/index.ts'
import { createSession, type CallableSession } from './context.ts'
import { runInTrial } from './trial-scope.ts'
import type { CallableAgent, CallableResult, CallableRunnerOptions } from './types.ts'

/**
 * Wraps a plain `async (input, ctx) => answer` function as an AgentRunner, so any hand-written or SDK-based agent
 * can be evaluated without writing a runner. The function records what it does through `ctx` (see
 * CallableContext); everything goes through the engine's RunContext, so limits, usage and the trace behave as for
 * any other runner.
 *
 * What the function returns: a string is its final answer, recorded as an `agent.final_answer` event unless it
 * already gave that answer with `ctx.answer()`; `{ finalAnswer, success?, artifacts?, error? }` is passed to the
 * engine as it is (its string answer recorded the same way); null or nothing leaves the last `ctx.answer()` as the
 * answer, if any. A function that throws ends the trial as `agent_error` with the error's message.
 */
export function callableRunner(fn: CallableAgent, options: CallableRunnerOptions = {}): AgentRunner {
  if (typeof fn !== 'function') {
    throw new AgentEvalOpsError('CONFIG_INVALID', `callableRunner: expected a function, got ${typeof fn}`, {
      hint: 'Pass your agent as async (input, ctx) => answer.',
    })
  }
  const name = options.name ?? (fn.name || 'callable')
  if (typeof name !== 'string' || name.trim() === '') {
    throw new AgentEvalOpsError('CONFIG_INVALID', 'callableRunner: options.name must be a non-empty string')
  }
  const config = JsonObject.safeParse(options.config ?? {})
  if (!config.success) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `callableRunner(${name}): options.config must be plain JSON: ${config.error.issues[0]?.message ?? ''}`,
      {
        hint: 'It is written to every trial record: keep to strings, numbers, booleans, arrays and objects.',
      },
    )
  }
  const info: RunnerInfo = { name, kind: 'callable', config: config.data }

  return {
    runnerInfo: () => ({ ...info, config: structuredClone(info.config) }),
    async run(task, env, ctx): Promise<AgentOutput> {
      const session = createSession(ctx)
      let returned: CallableResult
      try {
        // In the trial's async scope, so a model wrapped with traced() (AI SDK) finds the trial by itself.
        returned = await runInTrial(
          {
            context: session.context,
            run: ctx,
            recordedCall: session.recordedCall,
            noteRecordingError: session.noteRecordingError,
          },
          () => fn({ task, prompt: task.prompt, input: task.input, env }, session.context),
        )
      } catch (e) {
        // An SDK wraps what its fetch or callback threw: the trial ends on the recording error itself.
        throw session.recordingError ?? e
      }
      // An agent that caught the error and carried on still made a call that no recording answered.
      if (session.recordingError) throw session.recordingError
      return toOutput(returned, session, ctx.signal)
    },
  }
}

function toOutput(returned: CallableResult, session: CallableSession, signal: AbortSignal): AgentOutput {
  if (returned === null || returned === undefined) return { finalAnswer: session.answer }
  if (typeof returned === 'string') {
    recordAnswer(returned, session, signal)
    return { finalAnswer: returned }
  }
  if (typeof returned !== 'object' || Array.isArray(returned)) {
    return {
      finalAnswer: session.answer,
      error: `the agent returned ${Array.isArray(returned) ? 'an array' : `a ${typeof returned}`}: return a string, { finalAnswer, … } or null`,
    }
  }
  // A plain-JavaScript agent may leave finalAnswer out; an explicit null still means "no answer".
  const finalAnswer =
    (returned as Partial<AgentOutput>).finalAnswer === undefined ? session.answer : returned.finalAnswer
  if (typeof finalAnswer === 'string') recordAnswer(finalAnswer, session, signal)
  return { ...returned, finalAnswer }
}

/**
 * The trace's last answer must be the result's: the returned answer is recorded unless it is the one the agent
 * last gave through ctx.answer(), so the same answer is never in the trace twice.
 */
function recordAnswer(answer: string, session: CallableSession, signal: AbortSignal): void {
  // A stopped trial has its outcome already; the engine would refuse the event.
  if (signal.aborted) return
  if (session.answered && session.answer === answer) return
  session.context.answer(answer)
}
