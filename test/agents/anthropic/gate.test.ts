// The runner's model calls go through the trial's model-call gate (RunContext.modelCalls), so src/recording can
// record and replay them. A stand-in gate here: it keeps exchanges by request, and answers from them on replay.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { anthropicRunner, RateLimiter, type LimiterClock } from '../../../src/agents/anthropic/index.ts'
import { canonicalJson, type ModelCallGate, type ModelExchange } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import {
  FakeMessagesServer,
  messageReply,
  replies,
  textReply,
  toolUseBlock,
} from '../../support/fake-messages-server.ts'
import { benchmark, weatherTask, weatherTools } from './helpers.ts'

const KEY = 'sk-ant-test-gate-0123456789abcdef'

function tape(mode: 'record' | 'replay', store: Map<string, ModelExchange>): ModelCallGate {
  return {
    async exchange(request, call) {
      const key = canonicalJson(request)
      if (mode === 'replay') {
        const found = store.get(key)
        if (!found) throw new Error(`no recording for ${key.slice(0, 80)}`)
        return { ...found, replayed: true }
      }
      const exchange = await call()
      store.set(key, JSON.parse(JSON.stringify(exchange)) as ModelExchange)
      return { ...exchange, replayed: false }
    },
  }
}

/** A clock whose timers never fire: a request that has to wait for the limiter would hang the test. */
const frozen: LimiterClock = { now: () => 0, setTimer: () => () => {} }

let server: FakeMessagesServer

beforeEach(async () => {
  server = await FakeMessagesServer.start({ apiKey: KEY })
})

afterEach(async () => {
  await server.close()
})

describe('anthropicRunner and the model-call gate', () => {
  it('replays a recorded trial, retries included, without a request and without a rate-limit slot', async () => {
    server.enqueue(
      replies.overloaded(),
      messageReply({ content: [toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_1')] }),
      textReply('18°C'),
    )
    // Three requests in the recording, and room for exactly three.
    const limiter = new RateLimiter(3, frozen)
    const runner = anthropicRunner({
      model: 'claude-haiku-4-5',
      apiKey: KEY,
      baseURL: server.url,
      tools: weatherTools,
      limiter,
      retry: { baseDelayMs: 1 },
    })
    const store = new Map<string, ModelExchange>()
    const run = (mode: 'record' | 'replay') =>
      runTrial({
        runId: 'run-gate',
        benchmark,
        task: weatherTask,
        trial: 0,
        runner,
        traceStore: new MemoryTraceStore(),
        modelCalls: tape(mode, store),
      })

    const recorded = await run('record')
    expect(recorded.record.outcome).toBe('passed')
    expect(server.requests).toHaveLength(3)
    expect(store.size).toBe(2)

    let timer: NodeJS.Timeout | undefined
    const replayed = await Promise.race([
      run('replay'),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the replay hangs (${limiter.waiting} wait for a slot)`)),
          5_000,
        )
      }),
    ]).finally(() => clearTimeout(timer))
    expect(replayed.record.outcome).toBe('passed')
    expect(server.requests).toHaveLength(3)
    const shape = (events: typeof recorded.events) =>
      events
        .filter((e) => e.kind !== 'agent.terminal')
        .map((e) => ({ kind: e.kind, payload: e.payload, tokens: e.tokensDelta, cost: e.costDeltaUsd }))
    expect(shape(replayed.events)).toEqual(shape(recorded.events))
    expect(shape(replayed.events).map((e) => e.kind)).toEqual([
      'agent.model_call',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.final_answer',
    ])
  })
})
