// The CallableContext methods, each checked on the events it leaves in a real trial's trace (runTrial with an
// in-memory store): kinds, payloads, steps, tokens and cost.
import { describe, expect, it } from 'vitest'
import { callableRunner, type CallableAgent, type CallableUsage } from '../../../src/agents/callable/index.ts'
import type { ResourceLimits, TraceEvent } from '../../../src/core/index.ts'
import { runTrial, type TrialRun } from '../../../src/engine/index.ts'
import { costOf } from '../../../src/models/index.ts'
import { baseOptions, kinds } from '../../engine/helpers.ts'

function trial(agent: CallableAgent, limits: ResourceLimits = {}): Promise<TrialRun> {
  return runTrial(baseOptions({ runner: callableRunner(agent), limits }))
}

function eventsOf<K extends TraceEvent['kind']>(events: readonly TraceEvent[], kind: K) {
  return events.filter((e): e is Extract<TraceEvent, { kind: K }> => e.kind === kind)
}

const HAIKU = 'claude-haiku-4-5'

describe('callableRunner: the context methods and their events', () => {
  it('plan, modelCall, toolCall, observe and answer each write their event, in order, with its usage', async () => {
    const steps: number[] = []
    const { events, result, record } = await trial(async ({ prompt }, ctx) => {
      steps.push(ctx.plan('look the sum up'))
      steps.push(
        ctx.modelCall({
          model: HAIKU,
          inputTokens: 100,
          outputTokens: 20,
          text: 'I will search.',
          stopReason: 'tool_use',
        }),
      )
      const hits = await ctx.toolCall('search', { q: prompt }, ({ q }) => [`${q} = 2`])
      steps.push(ctx.observe(`${hits.length} hit: ${hits[0]}`))
      steps.push(ctx.answer('2'))
      return '2'
    })

    expect(kinds(events)).toEqual([
      'agent.plan',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.observation',
      'agent.final_answer',
      'agent.terminal',
    ])
    expect(steps).toEqual([0, 1, 4, 5])
    expect(events.map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(events[0]).toMatchObject({ payload: { text: 'look the sum up' }, tokensDelta: 0, costDeltaUsd: 0 })
    expect(events[1]?.payload).toEqual({
      model: HAIKU,
      inputTokens: 100,
      outputTokens: 20,
      text: 'I will search.',
      stopReason: 'tool_use',
      status: 'ok',
    })
    expect(events[1]).toMatchObject({ tokensDelta: 120, costDeltaUsd: (100 * 1 + 20 * 5) / 1e6 })
    expect(events[2]?.payload).toEqual({ tool: 'search', args: { q: 'What is 1+1?' }, callId: 'call_1' })
    expect(events[3]?.payload).toEqual({ tool: 'search', result: ['What is 1+1? = 2'], callId: 'call_1' })
    expect(events[4]?.payload).toEqual({ text: '1 hit: What is 1+1? = 2' })
    // The returned '2' is the answer already given: it is not recorded a second time.
    expect(events[5]?.payload).toEqual({ answer: '2' })
    expect(result).toMatchObject({
      finalAnswer: '2',
      success: true,
      terminatedBy: 'completed',
      totalTokens: 120,
      turns: 1,
    })
    expect(result?.totalCostUsd).toBeCloseTo(0.0002, 12)
    expect(record.warnings).toEqual([])
  })

  describe('toolCall', () => {
    it('hands run the very args and resolves with its very result; callIds count up per trial', async () => {
      const args = { path: 'a.txt' }
      const returned = { bytes: 3 }
      let seenArgs: unknown
      let resolved: unknown
      const { events } = await trial(async (_input, ctx) => {
        resolved = await ctx.toolCall('read', args, async (a) => {
          seenArgs = a
          return returned
        })
        await ctx.toolCall('read', { path: 'b.txt' }, () => 'sync result')
        return null
      })
      expect(seenArgs).toBe(args)
      expect(resolved).toBe(returned)
      const calls = eventsOf(events, 'agent.tool_call').map((e) => e.payload.callId)
      const results = eventsOf(events, 'agent.tool_result').map((e) => e.payload.callId)
      expect(calls).toEqual(['call_1', 'call_2'])
      expect(results).toEqual(calls)
      expect(eventsOf(events, 'agent.tool_result')[1]?.payload.result).toBe('sync result')
    })

    it('uses the callId the agent gives (e.g. the model’s tool_use id)', async () => {
      const { events } = await trial(async (_input, ctx) => {
        await ctx.toolCall('search', { q: 'x' }, () => [], { callId: 'toolu_01' })
        return null
      })
      expect(eventsOf(events, 'agent.tool_call')[0]?.payload.callId).toBe('toolu_01')
      expect(eventsOf(events, 'agent.tool_result')[0]?.payload.callId).toBe('toolu_01')
    })

    it('records a throwing tool as an error result and rethrows the same error to the agent', async () => {
      const boom = new Error('no such file: a.txt')
      let caught: unknown
      const { events, result } = await trial(async (_input, ctx) => {
        try {
          await ctx.toolCall('read', { path: 'a.txt' }, () => {
            throw boom
          })
        } catch (e) {
          caught = e
        }
        return 'recovered'
      })
      expect(caught).toBe(boom)
      expect(eventsOf(events, 'agent.tool_result')[0]?.payload).toEqual({
        tool: 'read',
        result: { error: 'no such file: a.txt' },
        isError: true,
        callId: 'call_1',
      })
      expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'recovered' })
    })

    it('an error the agent does not catch ends the trial as agent_error, after the error result', async () => {
      const { events, result } = await trial(async (_input, ctx) => {
        await ctx.toolCall('read', {}, async () => Promise.reject(new Error('disk on fire')))
        return 'unreached'
      })
      expect(kinds(events)).toEqual(['agent.tool_call', 'agent.tool_result', 'agent.terminal'])
      expect(result).toMatchObject({ terminatedBy: 'agent_error', error: 'disk on fire', finalAnswer: null })
    })

    it('records what is not JSON as JSON, with a note saying what was converted', async () => {
      const { events, result } = await trial(async (_input, ctx) => {
        await ctx.toolCall('log', { id: 10n, when: new Date(0) }, () => undefined)
        return 'done'
      })
      expect(eventsOf(events, 'agent.tool_call')[0]?.payload).toEqual({
        tool: 'log',
        args: { id: '10', when: '1970-01-01T00:00:00.000Z' },
        callId: 'call_1',
        note: 'args.id was a bigint, recorded as a string',
      })
      expect(eventsOf(events, 'agent.tool_result')[0]?.payload).toEqual({
        tool: 'log',
        result: null,
        callId: 'call_1',
        note: 'result was undefined, recorded as null',
      })
      expect(result?.terminatedBy).toBe('completed')
    })
  })

  describe('modelCall, recording a call that happened', () => {
    it('counts cache reads and writes as tokens and prices them from the table', async () => {
      const { events, result } = await trial(async (_input, ctx) => {
        ctx.modelCall({
          model: HAIKU,
          inputTokens: 10,
          outputTokens: 5,
          cacheReadTokens: 1000,
          cacheWriteTokens: 200,
          attempt: 2,
        })
        return null
      })
      const [call] = eventsOf(events, 'agent.model_call')
      expect(call?.payload).toEqual({
        model: HAIKU,
        inputTokens: 10,
        outputTokens: 5,
        cacheReadInputTokens: 1000,
        cacheCreationInputTokens: 200,
        status: 'ok',
        attempt: 2,
      })
      const expected = costOf(HAIKU, {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 200,
      })
      expect(expected).toBeCloseTo((10 * 1 + 5 * 5 + 1000 * 0.1 + 200 * 1.25) / 1e6, 12)
      expect(call).toMatchObject({ tokensDelta: 1215, costDeltaUsd: expected })
      expect(result).toMatchObject({ totalTokens: 1215, turns: 1 })
    })

    it('takes the agent’s own cost over the table, and needs no price for it', async () => {
      const { events, record } = await trial(async (_input, ctx) => {
        ctx.modelCall({ model: HAIKU, inputTokens: 100, outputTokens: 100, costUsd: 0.5 })
        ctx.modelCall({ model: 'gpt-5-mini', inputTokens: 100, outputTokens: 100, costUsd: 0.25 })
        return null
      })
      expect(eventsOf(events, 'agent.model_call').map((e) => e.costDeltaUsd)).toEqual([0.5, 0.25])
      expect(record.warnings).toEqual([])
    })

    it('records a model without a known price at $0 and warns once per model', async () => {
      const { events, record, result } = await trial(async (_input, ctx) => {
        ctx.modelCall({ model: 'my-local-llm', inputTokens: 30, outputTokens: 10 })
        ctx.modelCall({ model: 'my-local-llm', inputTokens: 30, outputTokens: 10 })
        // No tokens, no cost to miss: no warning for this one.
        ctx.modelCall({ model: 'other-llm' })
        return null
      })
      const calls = eventsOf(events, 'agent.model_call')
      expect(calls.map((e) => [e.tokensDelta, e.costDeltaUsd])).toEqual([
        [40, 0],
        [40, 0],
        [0, 0],
      ])
      expect(calls[0]?.payload).toMatchObject({ model: 'my-local-llm', costUnknown: true })
      expect(calls[2]?.payload).not.toHaveProperty('costUnknown')
      expect(record.warnings).toHaveLength(1)
      expect(record.warnings[0]).toMatch(/^no price for model "my-local-llm"/)
      expect(result).toMatchObject({ totalTokens: 80, totalCostUsd: 0, turns: 3 })
    })
  })

  describe('modelCall, wrapping a call', () => {
    it('resolves with the result and records what the call reported, over what was known before it', async () => {
      let answer: string | undefined
      const { events, result } = await trial(async (_input, ctx) => {
        answer = await ctx.modelCall({ model: 'claude-haiku-4-5', attempt: 1 }, async () => ({
          result: 'Paris',
          model: 'claude-haiku-4-5-20251001',
          inputTokens: 50,
          outputTokens: 4,
          text: 'Paris',
          stopReason: 'end_turn',
        }))
        return answer
      })
      expect(answer).toBe('Paris')
      const [call] = eventsOf(events, 'agent.model_call')
      expect(call?.payload).toEqual({
        model: 'claude-haiku-4-5-20251001',
        inputTokens: 50,
        outputTokens: 4,
        text: 'Paris',
        stopReason: 'end_turn',
        status: 'ok',
        attempt: 1,
        latencyMs: expect.any(Number) as number,
      })
      expect(call).toMatchObject({ tokensDelta: 54, costDeltaUsd: (50 * 1 + 4 * 5) / 1e6 })
      expect(result).toMatchObject({ finalAnswer: 'Paris', turns: 1 })
    })

    it('records a throwing call as status error (not a turn) and rethrows the same error', async () => {
      const overloaded = new Error('529 overloaded')
      let caught: unknown
      const { events, result } = await trial(async (_input, ctx) => {
        try {
          await ctx.modelCall({ model: HAIKU, attempt: 1 }, async () => Promise.reject(overloaded))
        } catch (e) {
          caught = e
        }
        await ctx.modelCall({ model: HAIKU, attempt: 2 }, () => ({
          result: 'ok',
          inputTokens: 5,
          outputTokens: 1,
        }))
        return 'ok'
      })
      expect(caught).toBe(overloaded)
      const calls = eventsOf(events, 'agent.model_call')
      expect(calls[0]?.payload).toEqual({
        model: HAIKU,
        status: 'error',
        attempt: 1,
        error: '529 overloaded',
        latencyMs: expect.any(Number) as number,
      })
      expect(calls[0]).toMatchObject({ tokensDelta: 0, costDeltaUsd: 0 })
      expect(calls[1]?.payload).toMatchObject({ status: 'ok', attempt: 2 })
      expect(result).toMatchObject({ turns: 1, totalTokens: 6, terminatedBy: 'completed' })
    })

    it('fails the agent with a clear message when the wrapped function returns no report', async () => {
      const { events, result } = await trial(async (_input, ctx) => {
        await ctx.modelCall({ model: HAIKU }, (() => 'Paris') as unknown as () => { result: string })
        return 'unreached'
      })
      expect(eventsOf(events, 'agent.model_call')).toEqual([])
      expect(result?.terminatedBy).toBe('agent_error')
      expect(result?.error).toMatch(/must return \{ result, inputTokens\?, outputTokens\?, … \}, got string/)
    })
  })

  describe('usage()', () => {
    it('gives the spent budget and what is left of each limit, undefined for limits not set', async () => {
      const seen: CallableUsage[] = []
      await trial(
        async (_input, ctx) => {
          seen.push(ctx.usage())
          ctx.modelCall({ model: HAIKU, inputTokens: 100, outputTokens: 20 })
          await ctx.toolCall('noop', {}, () => null)
          seen.push(ctx.usage())
          return null
        },
        { maxTokens: 1000, maxCostUsd: 0.01, maxTurns: 5 },
      )
      const [before, after] = seen
      expect(before).toMatchObject({
        tokens: 0,
        costUsd: 0,
        turns: 0,
        remaining: { tokens: 1000, costUsd: 0.01, turns: 5, seconds: undefined },
      })
      expect(after).toMatchObject({ tokens: 120, turns: 1, remaining: { tokens: 880, turns: 4 } })
      expect(after?.costUsd).toBeCloseTo(0.0002, 12)
      expect(after?.remaining.costUsd).toBeCloseTo(0.0098, 12)
      expect(after?.remaining.seconds).toBeUndefined()
      expect(after?.wallSeconds).toBeGreaterThanOrEqual(0)
    })

    it('counts the seconds left of a wall-time limit down from it', async () => {
      let remaining: number | undefined
      let wallSeconds = -1
      await trial(
        async (_input, ctx) => {
          const usage = ctx.usage()
          remaining = usage.remaining.seconds
          wallSeconds = usage.wallSeconds
          return null
        },
        { maxWallSeconds: 60 },
      )
      expect(remaining).toBeCloseTo(60 - wallSeconds, 9)
      expect(remaining).toBeLessThanOrEqual(60)
    })

    it('never counts below 0, even past a limit', async () => {
      let left: number | undefined
      let used: number | undefined
      await trial(
        async (_input, ctx) => {
          ctx.modelCall({ model: 'free-model' })
          try {
            ctx.modelCall({ model: 'free-model' })
          } catch {
            // The turn limit: swallowed here only to read the counters after it.
          }
          ;({
            turns: used,
            remaining: { turns: left },
          } = ctx.usage())
          return null
        },
        { maxTurns: 1 },
      )
      expect(used).toBe(2)
      expect(left).toBe(0)
    })
  })

  it('passes warn, limits and signal through from the engine', async () => {
    const limits = { maxTurns: 3, maxWallSeconds: 60 }
    let seen: { limits: ResourceLimits; aborted: boolean } | undefined
    const { record, events } = await trial(async (_input, ctx) => {
      ctx.warn('the cache was cold')
      seen = { limits: ctx.limits, aborted: ctx.signal.aborted }
      return null
    }, limits)
    expect(record.warnings).toEqual(['the cache was cold'])
    expect(seen).toEqual({ limits, aborted: false })
    expect(kinds(events)).toEqual(['agent.terminal'])
  })

  it('keeps working when its methods are destructured', async () => {
    const { events } = await trial(async (_input, { plan, toolCall, modelCall, observe, answer }) => {
      plan('p')
      modelCall({ model: HAIKU, inputTokens: 1, outputTokens: 1 })
      await toolCall('t', {}, () => 1)
      observe('o')
      answer('a')
      return null
    })
    expect(kinds(events).slice(0, -1)).toEqual([
      'agent.plan',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.observation',
      'agent.final_answer',
    ])
  })
})
