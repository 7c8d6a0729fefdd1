import { describe, expect, it } from 'vitest'
import type { AgentRunner } from '../../../src/core/index.ts'
import { messageReply, replies, textReply, toolUseBlock } from '../../support/fake-messages-server.ts'
import { fakeApi, kinds, modelCalls, plainTask, trial, until, weatherTask, weatherTools } from './helpers.ts'

const KEY = 'sk-ant-test-limits-0123456789abcdef'

const api = fakeApi(KEY, { tools: weatherTools })
const runner = api.runner

const weatherCall = (id: string) =>
  messageReply({
    content: [toolUseBlock('get_weather', { city: 'Paris' }, id)],
    usage: { input_tokens: 100, output_tokens: 20 },
  })

/** The runner, with a handle on its own promise: to show it stopped, not only that the engine moved on. */
function watched(inner: AgentRunner) {
  const state: { settled: Promise<unknown> | null } = { settled: null }
  const wrapped: AgentRunner = {
    runnerInfo: () => inner.runnerInfo(),
    run: (task, env, ctx) => {
      const running = inner.run(task, env, ctx)
      state.settled = running.then(
        (output) => output,
        (error: unknown) => error,
      )
      return running
    },
  }
  return { runner: wrapped, state }
}

describe('anthropicRunner under the trial limits', () => {
  it('maxTokens: stops at the model call that crosses it → limit_tokens', async () => {
    api.server().enqueue(weatherCall('toolu_1'), textReply('18°C'))
    const { record, events } = await trial(runner(), weatherTask, { limits: { maxTokens: 100 } })
    expect(record.result?.terminatedBy).toBe('limit_tokens')
    expect(record.outcome).toBe('limit_exceeded')
    // The crossing call is in the trace; the tool it asked for never ran.
    expect(kinds(events)).toEqual(['agent.model_call', 'agent.terminal'])
    expect(record.usage.tokens).toBe(120)
    expect(api.server().requests).toHaveLength(1)
  })

  it('maxTurns: the second model call is one turn too many → limit_turns', async () => {
    api.server().enqueue(weatherCall('toolu_1'), weatherCall('toolu_2'), textReply('18°C'))
    const { record, events } = await trial(runner(), weatherTask, { limits: { maxTurns: 1 } })
    expect(record.result?.terminatedBy).toBe('limit_turns')
    expect(kinds(events)).toEqual([
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.terminal',
    ])
    expect(api.server().requests).toHaveLength(2)
    expect(api.server().pending).toBe(1)
  })

  it('maxTurns: failed attempts are not turns', async () => {
    api.server().enqueue(replies.rateLimited('0'), replies.overloaded(), textReply('hi'))
    const { record, events } = await trial(runner(), plainTask, { limits: { maxTurns: 1 } })
    expect(record.result).toMatchObject({ terminatedBy: 'completed', turns: 1, finalAnswer: 'hi' })
    expect(modelCalls(events).map((e) => e.payload.status)).toEqual(['error', 'error', 'ok'])
  })

  it('maxCostUsd: stops at the call that costs too much → limit_cost', async () => {
    api.server().enqueue(weatherCall('toolu_1'), textReply('18°C'))
    // The first call costs $0.0002 at Haiku 4.5 prices.
    const { record, events } = await trial(runner(), weatherTask, { limits: { maxCostUsd: 0.0001 } })
    expect(record.result?.terminatedBy).toBe('limit_cost')
    expect(record.usage.costUsd).toBeCloseTo(0.0002, 12)
    expect(kinds(events)).toEqual(['agent.model_call', 'agent.terminal'])
    expect(api.server().requests).toHaveLength(1)
  })

  it('maxWallSeconds: aborts the request in flight → limit_time, long before the reply would come', async () => {
    api.server().enqueue(replies.slow(10_000, textReply('too late')))
    const { runner: r, state } = watched(runner())
    const started = performance.now()
    const { record, events } = await trial(r, plainTask, { limits: { maxWallSeconds: 0.3 } })
    expect(record.result?.terminatedBy).toBe('limit_time')
    expect(record.outcome).toBe('limit_exceeded')
    expect(kinds(events)).toEqual(['agent.terminal'])
    // The runner itself stopped (its promise settled), and the api.server() saw the connection go.
    const settled = await Promise.race([
      state.settled,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 2_000)),
    ])
    expect(settled).not.toBe('still running')
    await until(
      () => api.server().requests[0]?.abandoned === true,
      2_000,
      'the api.server() to see the connection close',
    )
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(api.server().requests).toHaveLength(1)
  })

  it('maxWallSeconds: also ends a wait for a retry', async () => {
    api.server().enqueue(replies.rateLimited('30'), textReply('too late'))
    const { runner: r, state } = watched(runner({ retry: { maxDelayMs: 60_000 } }))
    const started = performance.now()
    const { record, events } = await trial(r, plainTask, { limits: { maxWallSeconds: 0.3 } })
    expect(record.result?.terminatedBy).toBe('limit_time')
    expect(modelCalls(events).map((e) => [e.payload.status, e.payload.retryInMs])).toEqual([
      ['error', 30_000],
    ])
    await state.settled
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(api.server().requests).toHaveLength(1)
  })
})
