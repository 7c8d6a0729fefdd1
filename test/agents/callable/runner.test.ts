// callableRunner as the engine sees it: what the wrapped function is given, what its return value becomes, how
// limits reach into its code, and what it says about itself in the trial record.
import { describe, expect, it } from 'vitest'
import { callableRunner, type CallableAgent, type CallableInput } from '../../../src/agents/callable/index.ts'
import {
  AgentEvalOpsError,
  defineTask,
  isAgentEvalOpsError,
  type ResourceLimits,
} from '../../../src/core/index.ts'
import { runTrial, type RunTrialOptions, type TrialRun } from '../../../src/engine/index.ts'
import { matchesExpected } from '../../../src/evaluators/index.ts'
import { baseOptions, kinds } from '../../engine/helpers.ts'

function trial(
  agent: CallableAgent,
  limits: ResourceLimits = {},
  extra: Partial<RunTrialOptions> = {},
): Promise<TrialRun> {
  return runTrial(baseOptions({ runner: callableRunner(agent), limits, ...extra }))
}

const HAIKU = 'claude-haiku-4-5'

/** A promise with its resolve function, for waiting on what an agent does after the engine has let it go. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

describe('callableRunner', () => {
  describe('input', () => {
    it('hands the function the task, its prompt and input, and the prepared env', async () => {
      const task = defineTask({
        id: 'sum',
        benchmark: 'toy',
        prompt: 'Add the numbers.',
        input: { numbers: [1, 2] },
        expected: '3',
      })
      let seen: CallableInput | undefined
      await trial(
        (input) => {
          seen = input
          return '3'
        },
        {},
        { task, prepare: () => ({ workdir: '/tmp/ws' }) },
      )
      expect(seen).toEqual({
        task,
        prompt: 'Add the numbers.',
        input: { numbers: [1, 2] },
        env: { workdir: '/tmp/ws' },
      })
    })
  })

  describe('what the function returns', () => {
    it('a string is the final answer, recorded once, and the trial can pass on it', async () => {
      const { events, result, record } = await runTrial(
        baseOptions({ runner: callableRunner(async () => '2'), evaluators: [matchesExpected()] }),
      )
      expect(kinds(events)).toEqual(['agent.final_answer', 'agent.terminal', 'evaluator.score'])
      expect(events[0]?.payload).toEqual({ answer: '2' })
      expect(result).toMatchObject({ finalAnswer: '2', success: true, terminatedBy: 'completed' })
      expect(record.outcome).toBe('passed')
    })

    it('an answer different from the last ctx.answer() is recorded too, so the trace ends on the real answer', async () => {
      const { events, result } = await trial(async (_input, ctx) => {
        ctx.answer('1')
        return '2'
      })
      expect(events.filter((e) => e.kind === 'agent.final_answer').map((e) => e.payload)).toEqual([
        { answer: '1' },
        { answer: '2' },
      ])
      expect(result?.finalAnswer).toBe('2')
    })

    it('an object passes through to the engine, its answer recorded unless already given', async () => {
      const artifacts = [{ name: 'report', path: 'artifacts/report.md' }]
      const { events, result } = await trial(async () => ({ finalAnswer: '2', success: false, artifacts }))
      expect(events.filter((e) => e.kind === 'agent.final_answer')).toHaveLength(1)
      expect(result).toMatchObject({ finalAnswer: '2', success: false, artifacts, terminatedBy: 'completed' })

      const answered = await trial(async (_input, ctx) => {
        ctx.answer('2')
        return { finalAnswer: '2' }
      })
      expect(answered.events.filter((e) => e.kind === 'agent.final_answer')).toHaveLength(1)
    })

    it('an object with an error of the agent’s own ends the trial as agent_error', async () => {
      const { events, result } = await trial(async () => ({
        finalAnswer: null,
        error: 'gave up after 3 tries',
      }))
      expect(kinds(events)).toEqual(['agent.terminal'])
      expect(result).toMatchObject({
        finalAnswer: null,
        success: false,
        terminatedBy: 'agent_error',
        error: 'gave up after 3 tries',
      })
    })

    it('null or nothing means no answer of its own: the last ctx.answer() stands, if any', async () => {
      const silent = await trial(async () => null)
      expect(kinds(silent.events)).toEqual(['agent.terminal'])
      expect(silent.result).toMatchObject({ finalAnswer: null, success: false, terminatedBy: 'completed' })

      const answered = await trial(async (_input, ctx) => {
        ctx.answer('2')
      })
      expect(kinds(answered.events)).toEqual(['agent.final_answer', 'agent.terminal'])
      expect(answered.result).toMatchObject({ finalAnswer: '2', success: true })

      const omitted = await trial(async (_input, ctx) => {
        ctx.answer('2')
        return { success: true } as unknown as { finalAnswer: string }
      })
      expect(omitted.result).toMatchObject({ finalAnswer: '2', success: true })
    })

    it('anything else is an agent error that says what to return', async () => {
      const { result } = await trial((async () => 42) as unknown as CallableAgent)
      expect(result).toMatchObject({ terminatedBy: 'agent_error', finalAnswer: null })
      expect(result?.error).toBe('the agent returned a number: return a string, { finalAnswer, … } or null')
    })
  })

  describe('a function that throws', () => {
    it('ends the trial as agent_error with the message, keeping what it recorded before', async () => {
      const { events, result } = await trial(async (_input, ctx) => {
        ctx.modelCall({ model: HAIKU, inputTokens: 10, outputTokens: 2 })
        throw new Error('parser blew up')
      })
      expect(kinds(events)).toEqual(['agent.model_call', 'agent.terminal'])
      expect(result).toMatchObject({
        terminatedBy: 'agent_error',
        error: 'parser blew up',
        success: false,
        totalTokens: 12,
        turns: 1,
      })
    })

    it('also before its first await, and when it is not async at all', async () => {
      const sync = await trial(() => {
        throw new Error('sync failure')
      })
      expect(sync.result).toMatchObject({ terminatedBy: 'agent_error', error: 'sync failure' })
    })
  })

  describe('limits reach into the function through ctx', () => {
    it('maxTokens crossed by a modelCall throws LIMIT_REACHED there; the trial ends limit_tokens', async () => {
      let caught: unknown
      const { events, result } = await trial(
        async (_input, ctx) => {
          ctx.modelCall({ model: HAIKU, inputTokens: 60, outputTokens: 20 })
          try {
            ctx.modelCall({ model: HAIKU, inputTokens: 60, outputTokens: 20 })
          } catch (e) {
            caught = e
            throw e
          }
          return 'unreached'
        },
        { maxTokens: 100 },
      )
      expect(isAgentEvalOpsError(caught, 'LIMIT_REACHED')).toBe(true)
      // The crossing call is in the trace, so it shows what broke the limit.
      expect(kinds(events)).toEqual(['agent.model_call', 'agent.model_call', 'agent.terminal'])
      expect(result).toMatchObject({ terminatedBy: 'limit_tokens', totalTokens: 160, success: false })
      expect(result?.error).toMatch(/token limit reached: 160 tokens used, maxTokens is 100/)
    })

    it('a wrapped call that crosses the limit rejects with LIMIT_REACHED once it has run', async () => {
      let ran = false
      let caught: unknown
      const { result } = await trial(
        async (_input, ctx) => {
          try {
            await ctx.modelCall({ model: HAIKU }, async () => {
              ran = true
              return { result: 'big', inputTokens: 500, outputTokens: 10 }
            })
          } catch (e) {
            caught = e
            throw e
          }
          return 'unreached'
        },
        { maxTokens: 100 },
      )
      expect(ran).toBe(true)
      expect(isAgentEvalOpsError(caught, 'LIMIT_REACHED')).toBe(true)
      expect(result?.terminatedBy).toBe('limit_tokens')
    })

    it('an agent that swallows the limit error still ends with the limit, and every later call throws again', async () => {
      const later = deferred<unknown[]>()
      const { events, result } = await trial(
        async (_input, ctx) => {
          try {
            ctx.modelCall({ model: 'priced-by-agent', inputTokens: 1, outputTokens: 1, costUsd: 0.02 })
          } catch {
            // An over-broad catch: the agent carries on as if nothing happened.
          }
          const errors: unknown[] = []
          for (const attempt of [
            () => ctx.plan('carry on'),
            () => ctx.answer('2'),
            () => ctx.modelCall({ model: HAIKU }),
          ]) {
            try {
              attempt()
            } catch (e) {
              errors.push(e)
            }
          }
          errors.push(await ctx.toolCall('t', {}, () => 1).catch((e: unknown) => e))
          later.resolve(errors)
          return '2'
        },
        { maxCostUsd: 0.01 },
      )
      expect(result).toMatchObject({ terminatedBy: 'limit_cost', finalAnswer: null, success: false })
      expect(kinds(events)).toEqual(['agent.model_call', 'agent.terminal'])
      const errors = await later.promise
      expect(errors).toHaveLength(4)
      for (const e of errors) expect(isAgentEvalOpsError(e, 'LIMIT_REACHED')).toBe(true)
    })

    it('maxWallSeconds: a slow tool is cut off, the signal fires and the function sees the abort', async () => {
      const release = deferred<void>()
      const saw = deferred<{ error: unknown; aborted: boolean; signalFired: boolean }>()
      try {
        const { events, result } = await trial(
          async (_input, ctx) => {
            let signalFired = false
            ctx.signal.addEventListener('abort', () => (signalFired = true))
            try {
              // A tool that ignores the signal: toolCall must not leave the agent waiting on it.
              await ctx.toolCall('slow_search', { q: 'x' }, () => release.promise)
            } catch (error) {
              saw.resolve({ error, aborted: ctx.signal.aborted, signalFired })
              throw error
            }
            return 'unreached'
          },
          { maxWallSeconds: 0.2 },
        )
        expect(result).toMatchObject({ terminatedBy: 'limit_time', success: false })
        expect(result?.error).toMatch(/time limit reached/)
        expect(kinds(events)).toEqual(['agent.tool_call', 'agent.terminal'])
        const { error, aborted, signalFired } = await saw.promise
        expect(isAgentEvalOpsError(error, 'LIMIT_REACHED')).toBe(true)
        expect(aborted).toBe(true)
        expect(signalFired).toBe(true)
      } finally {
        release.resolve()
      }
    })

    it('a cancelled run rejects a pending model call with RUN_ABORTED and ends interrupted', async () => {
      const controller = new AbortController()
      const saw = deferred<unknown>()
      const { result } = await trial(
        async (_input, ctx) => {
          try {
            await ctx.modelCall({ model: HAIKU }, () => {
              controller.abort(new Error('user pressed Ctrl+C'))
              return new Promise<never>(() => {})
            })
          } catch (e) {
            saw.resolve(e)
            throw e
          }
          return 'unreached'
        },
        {},
        { signal: controller.signal },
      )
      expect(result?.terminatedBy).toBe('interrupted')
      expect(isAgentEvalOpsError(await saw.promise, 'RUN_ABORTED')).toBe(true)
    })
  })

  describe('runnerInfo', () => {
    it('names the runner after the function, kind "callable", with the given config', async () => {
      async function researchAgent(): Promise<string> {
        return '2'
      }
      expect(callableRunner(researchAgent).runnerInfo()).toEqual({
        name: 'researchAgent',
        kind: 'callable',
        config: {},
      })
      expect(callableRunner(() => null).runnerInfo().name).toBe('callable')
      const named = callableRunner(researchAgent, {
        name: 'research@v2',
        config: { model: HAIKU, temperature: 0 },
      })
      expect(named.runnerInfo()).toEqual({
        name: 'research@v2',
        kind: 'callable',
        config: { model: HAIKU, temperature: 0 },
      })
      const { record } = await runTrial(baseOptions({ runner: named }))
      expect(record.runner).toEqual(named.runnerInfo())
    })

    it('is a copy: changing it does not change the runner', () => {
      const runner = callableRunner(() => null, { config: { model: HAIKU } })
      runner.runnerInfo().config.model = 'changed'
      expect(runner.runnerInfo().config).toEqual({ model: HAIKU })
    })

    it('rejects, at definition, a non-function, an empty name and a config that is not JSON', () => {
      const configError = (f: () => unknown) => {
        try {
          f()
        } catch (e) {
          return e instanceof AgentEvalOpsError ? e.code : e
        }
        return 'no error'
      }
      expect(configError(() => callableRunner('agent' as unknown as CallableAgent))).toBe('CONFIG_INVALID')
      expect(configError(() => callableRunner(() => null, { name: '' }))).toBe('CONFIG_INVALID')
      expect(
        configError(() =>
          callableRunner(() => null, { config: { client: new Map() } as unknown as Record<string, never> }),
        ),
      ).toBe('CONFIG_INVALID')
    })
  })
})
