import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TraceEvent, isAgentEvalOpsError } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { JsonlTraceStore } from '../../src/stores/index.ts'
import { baseOptions, fixedChecker, fixedEvaluator, inlineRunner, kinds, sleep } from './helpers.ts'

let root: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aeo-engine-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('runTrial trace', () => {
  it('ends a trial without sitting out the trace store’s commit window, every event on disk', async () => {
    // A window far longer than the test's timeout: a trial that waited for it would time the test out.
    const store = new JsonlTraceStore(root, { commitDelayMs: 60_000 })
    const order: string[] = []
    const window = sleep(2_000).then(() => order.push('window'))
    const { record } = await runTrial(
      baseOptions({
        runner: inlineRunner((ctx) => {
          ctx.emit('agent.plan', { text: 'go' })
          return { finalAnswer: 'done' }
        }),
        traceStore: store,
      }),
    )
    order.push('trial')
    expect(order).toEqual(['trial'])
    expect(kinds(await store.read(record.tracePath))).toEqual(['agent.plan', 'agent.terminal'])
    void window
  }, 5_000)

  it('writes the same events it returns, numbered from 0, with terminal, scores and verdicts last', async () => {
    const store = new JsonlTraceStore(root)
    const { record, events } = await runTrial(
      baseOptions({
        traceStore: store,
        evaluators: [fixedEvaluator(true, 'a'), fixedEvaluator(true, 'b')],
        policy: [fixedChecker('PASS')],
      }),
    )
    expect(await store.read(record.tracePath)).toEqual(events)
    expect(events.map((e) => e.step)).toEqual(events.map((_, i) => i))
    expect(kinds(events)).toEqual([
      'agent.plan',
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
      'evaluator.score',
      'evaluator.score',
      'policy.verdict',
    ])
    for (const e of events) {
      expect(TraceEvent.parse(e)).toEqual(e)
      expect(e).toMatchObject({ runId: 'run-1', benchmark: 'toy', taskId: 'math/add one', trial: 0 })
      expect(e.spanId).toMatch(/^[0-9a-f]{16}$/)
    }
    expect(events[1]).toMatchObject({ tokensDelta: 10, costDeltaUsd: 0.001 })
    expect(events[3]?.payload).toMatchObject({
      terminatedBy: 'completed',
      success: true,
      error: null,
      totalTokens: 10,
    })
    expect(events[4]?.payload).toMatchObject({ evaluatorId: 'a', score: 1, passed: true })
    expect(record.eventCount).toBe(7)
  })

  it('streams events to the trace while the agent is still running', async () => {
    const store = new JsonlTraceStore(root)
    const paths: string[] = []
    const traceStore = {
      open: (key: { taskId: string; trial: number }) => {
        const writer = store.open(key)
        paths.push(writer.path)
        return writer
      },
      read: (path: string) => store.read(path),
    }
    let onDiskMidRun = -1
    const runner = inlineRunner(async (ctx) => {
      ctx.emit('agent.plan', { text: 'first' })
      ctx.emit('agent.observation', { text: 'second' })
      await sleep(50)
      onDiskMidRun = (await store.read(paths[0]!)).length
      return { finalAnswer: 'x' }
    })
    await runTrial(baseOptions({ runner, traceStore }))
    expect(onDiskMidRun).toBe(2)
  })

  it('takes a JSON copy of payloads and infers tokens from model-call counts', async () => {
    const args = { q: 'x', when: new Date(0) }
    const runner = inlineRunner((ctx) => {
      ctx.emit('agent.tool_call', { tool: 'search', args: args as never })
      args.q = 'mutated'
      ctx.emit('agent.model_call', { inputTokens: 7, outputTokens: 5 })
      return { finalAnswer: 'x' }
    })
    const { events, result } = await runTrial(baseOptions({ runner }))
    expect(events[0]?.payload).toEqual({ tool: 'search', args: { q: 'x', when: '1970-01-01T00:00:00.000Z' } })
    expect(events[1]?.tokensDelta).toBe(12)
    expect(result?.totalTokens).toBe(12)
  })

  it('refuses invalid events with TRACE_INVALID without recording them', async () => {
    const errors: unknown[] = []
    const runner = inlineRunner((ctx) => {
      const attempts = [
        () => ctx.emit('agent.tool_call', { tool: '', args: {} }),
        () =>
          ctx.emit(
            'agent.terminal' as never,
            { terminatedBy: 'completed', success: true, error: null } as never,
          ),
        () => ctx.emit('agent.plan', { text: 'x' }, { tokens: -1 }),
        () => ctx.emit('agent.plan', { text: 'x' }, { tokens: 1.5 }),
      ]
      for (const attempt of attempts) {
        try {
          attempt()
        } catch (e) {
          errors.push(e)
        }
      }
      return { finalAnswer: 'x' }
    })
    const { events } = await runTrial(baseOptions({ runner }))
    expect(errors).toHaveLength(4)
    expect(errors.every((e) => isAgentEvalOpsError(e, 'TRACE_INVALID'))).toBe(true)
    expect(kinds(events)).toEqual(['agent.terminal'])
  })

  it('drops, with a warning, events a runner emits after it has returned', async () => {
    let emitLater: (() => number) | undefined
    const runner = inlineRunner((ctx) => {
      emitLater = () => ctx.emit('agent.observation', { text: 'leaked' })
      return { finalAnswer: 'x' }
    })
    const warnings: string[] = []
    const { events } = await runTrial(baseOptions({ runner, onWarning: (w) => warnings.push(w) }))
    expect(emitLater?.()).toBe(-1)
    expect(kinds(events)).toEqual(['agent.terminal'])
    expect(warnings.at(-1)).toMatch(/dropped a agent.observation event/)
  })
})
