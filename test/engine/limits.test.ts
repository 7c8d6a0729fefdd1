import { describe, expect, it } from 'vitest'
import '../../plugin/matchers.ts'
import { isAgentEvalOpsError, type RunContext } from '../../src/core/index.ts'
import { runTrial, tighterLimits } from '../../src/engine/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { baseOptions, inlineRunner, kinds, sleep } from './helpers.ts'

/** Calls the model `calls` times with the given usage each, then answers; records what emit threw. */
function spendingRunner(calls: number, usage: { tokens?: number; costUsd?: number }, thrown: unknown[] = []) {
  return inlineRunner((ctx: RunContext) => {
    try {
      for (let i = 0; i < calls; i++) ctx.emit('agent.model_call', { text: `call ${i}` }, usage)
      ctx.emit('agent.final_answer', { answer: 'done' })
    } catch (e) {
      thrown.push(e)
      throw e
    }
    return { finalAnswer: 'done' }
  })
}

describe('runTrial limits', () => {
  it('stops at the token limit, after recording the event that crossed it', async () => {
    const thrown: unknown[] = []
    const { record, result, events } = await runTrial(
      baseOptions({ runner: spendingRunner(5, { tokens: 60 }, thrown), limits: { maxTokens: 100 } }),
    )
    expect(result).toMatchObject({ terminatedBy: 'limit_tokens', success: false, totalTokens: 120 })
    expect(result?.error).toMatch(/token limit/)
    expect(record.outcome).toBe('limit_exceeded')
    expect(kinds(events)).toEqual(['agent.model_call', 'agent.model_call', 'agent.terminal'])
    expect(isAgentEvalOpsError(thrown[0], 'LIMIT_REACHED')).toBe(true)
  })

  it('lets the runner read what it has spent, so it can stop before a limit', async () => {
    const seen: ReturnType<RunContext['usage']>[] = []
    const runner = inlineRunner(async (ctx) => {
      seen.push(ctx.usage())
      ctx.emit('agent.model_call', { text: 'a' }, { tokens: 30, costUsd: 0.01 })
      ctx.emit('agent.tool_call', { tool: 't', args: {} })
      await sleep(20)
      seen.push(ctx.usage())
      ctx.emit('agent.model_call', { text: 'b' }, { tokens: 30, costUsd: 0.01 })
      seen.push(ctx.usage())
      return { finalAnswer: 'done' }
    })
    const { result } = await runTrial(baseOptions({ runner }))
    expect(seen.map(({ wallSeconds: _, ...u }) => u)).toEqual([
      { tokens: 0, costUsd: 0, turns: 0 },
      { tokens: 30, costUsd: 0.01, turns: 1 },
      { tokens: 60, costUsd: 0.02, turns: 2 },
    ])
    expect(seen[1]!.wallSeconds).toBeGreaterThanOrEqual(0.01)
    expect(seen[2]!.wallSeconds).toBeLessThanOrEqual(result!.wallSeconds + 0.001)
  })

  it('does not count a failed model-call attempt as a turn, in the engine or in the budget check', async () => {
    const runner = inlineRunner((ctx) => {
      ctx.emit('agent.model_call', { model: 'm', status: 'error', attempt: 1, error: '429 rate limited' })
      ctx.emit('agent.model_call', { model: 'm', attempt: 2 }, { tokens: 10 })
      ctx.warn('price unknown for model m')
      return { finalAnswer: 'done' }
    })
    const { result, record, events } = await runTrial(baseOptions({ runner, limits: { maxTurns: 1 } }))
    expect(result).toMatchObject({ terminatedBy: 'completed', turns: 1 })
    expect(record.warnings).toEqual(['price unknown for model m'])
    expect(events).toStayWithinBudget({ turns: 1 })
  })

  it('allows usage exactly at a limit', async () => {
    const { result } = await runTrial(
      baseOptions({ runner: spendingRunner(2, { tokens: 50 }), limits: { maxTokens: 100 } }),
    )
    expect(result?.terminatedBy).toBe('completed')
  })

  it('stops at the turn limit, counting model calls', async () => {
    const { result, events } = await runTrial(
      baseOptions({ runner: spendingRunner(5, {}), limits: { maxTurns: 2 } }),
    )
    expect(result).toMatchObject({ terminatedBy: 'limit_turns', turns: 3 })
    expect(events.filter((e) => e.kind === 'agent.model_call')).toHaveLength(3)
  })

  it('counts tool calls and answers as turns for a runner that reports no model calls', async () => {
    const runner = inlineRunner((ctx) => {
      ctx.emit('agent.plan', { text: 'p' })
      ctx.emit('agent.tool_call', { tool: 'search', args: {} })
      ctx.emit('agent.tool_result', { tool: 'search', result: 'r' })
      ctx.emit('agent.final_answer', { answer: 'a' })
      return { finalAnswer: 'a' }
    })
    expect((await runTrial(baseOptions({ runner }))).result?.turns).toBe(2)
    expect((await runTrial(baseOptions({ runner, limits: { maxTurns: 1 } }))).result?.terminatedBy).toBe(
      'limit_turns',
    )
  })

  it('stops at the cost limit', async () => {
    const { result } = await runTrial(
      baseOptions({ runner: spendingRunner(10, { costUsd: 0.004 }), limits: { maxCostUsd: 0.01 } }),
    )
    expect(result?.terminatedBy).toBe('limit_cost')
    expect(result?.totalCostUsd).toBeCloseTo(0.012)
  })

  it('refuses further events from a runner that swallows the limit error', async () => {
    const refused: unknown[] = []
    const runner = inlineRunner((ctx) => {
      for (let i = 0; i < 5; i++) {
        try {
          ctx.emit('agent.model_call', {}, { tokens: 100 })
        } catch (e) {
          refused.push(e)
        }
      }
      return { finalAnswer: 'partial' }
    })
    const { result, events } = await runTrial(baseOptions({ runner, limits: { maxTokens: 150 } }))
    expect(result?.terminatedBy).toBe('limit_tokens')
    expect(refused).toHaveLength(4)
    expect(events.filter((e) => e.kind === 'agent.model_call')).toHaveLength(2)
  })

  it('ends a runner that ignores its signal at the wall-time limit, and drops what it emits later', async () => {
    let wokeUp = false
    let lateEmit: unknown
    const runner = inlineRunner(async (ctx) => {
      ctx.emit('agent.plan', { text: 'sleeping' })
      await sleep(600)
      wokeUp = true
      try {
        ctx.emit('agent.final_answer', { answer: 'too late' })
      } catch (e) {
        lateEmit = e
      }
      return { finalAnswer: 'too late' }
    })
    const store = new MemoryTraceStore()
    const { record, result, events } = await runTrial(
      baseOptions({ runner, traceStore: store, limits: { maxWallSeconds: 0.2 } }),
    )
    // The runner's own timer is due later than the limit's, so the engine must have returned without it.
    expect(wokeUp).toBe(false)
    expect(result).toMatchObject({ terminatedBy: 'limit_time', success: false, finalAnswer: null })
    expect(result!.wallSeconds).toBeGreaterThanOrEqual(0.19)
    expect(record.outcome).toBe('limit_exceeded')

    await sleep(700)
    expect(wokeUp).toBe(true)
    expect(isAgentEvalOpsError(lateEmit, 'LIMIT_REACHED')).toBe(true)
    expect(kinds(events)).toEqual(['agent.plan', 'agent.terminal'])
    expect(await store.read(record.tracePath)).toHaveLength(2)
  })

  it('does not wait five seconds for a sleeping runner with a 0.2 s limit', async () => {
    let timer: NodeJS.Timeout | undefined
    const runner = inlineRunner(async () => {
      await new Promise((r) => (timer = setTimeout(r, 5_000)))
      return { finalAnswer: 'late' }
    })
    try {
      const started = performance.now()
      const { result } = await runTrial(baseOptions({ runner, limits: { maxWallSeconds: 0.2 } }))
      expect(result?.terminatedBy).toBe('limit_time')
      expect(performance.now() - started).toBeLessThan(2_000)
    } finally {
      clearTimeout(timer)
    }
  })

  it('keeps the last answer a stopped runner gave along the way', async () => {
    const runner = inlineRunner(async (ctx) => {
      ctx.emit('agent.final_answer', { answer: 'draft' })
      await new Promise((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
      )
      return { finalAnswer: 'final' }
    })
    const { result } = await runTrial(baseOptions({ runner, limits: { maxWallSeconds: 0.05 } }))
    expect(result).toMatchObject({ terminatedBy: 'limit_time', finalAnswer: 'draft', success: false })
  })
})

describe("a task's own limits", () => {
  it('apply limit by limit with the run’s, the tighter of each winning', () => {
    expect(tighterLimits({ maxWallSeconds: 60, maxTokens: 100 }, { maxWallSeconds: 2, maxTurns: 3 })).toEqual(
      {
        maxWallSeconds: 2,
        maxTokens: 100,
        maxTurns: 3,
      },
    )
    expect(tighterLimits({ maxWallSeconds: 1 }, { maxWallSeconds: 5, maxCostUsd: 0 })).toEqual({
      maxWallSeconds: 1,
      maxCostUsd: 0,
    })
    expect(tighterLimits({ maxTokens: 7 }, undefined)).toEqual({ maxTokens: 7 })
  })

  it('stop a runner at the task’s time limit when the run’s is looser', async () => {
    const runner = inlineRunner(async (ctx) => {
      await new Promise((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
      )
      return { finalAnswer: 'never' }
    })
    const { result, record } = await runTrial(
      baseOptions({ runner, limits: { maxWallSeconds: 60 }, taskLimits: { maxWallSeconds: 0.1 } }),
    )
    expect(result).toMatchObject({
      terminatedBy: 'limit_time',
      error: 'time limit reached: maxWallSeconds is 0.1',
    })
    expect(record.outcome).toBe('limit_exceeded')
  })

  it('are refused as CONFIG_INVALID when malformed', async () => {
    const runner = inlineRunner(() => ({ finalAnswer: 'x' }))
    const thrown = await runTrial(baseOptions({ runner, taskLimits: { maxWallSeconds: -1 } })).catch(
      (e: unknown) => e,
    )
    expect(isAgentEvalOpsError(thrown, 'CONFIG_INVALID')).toBe(true)
  })
})

describe('registered artifacts', () => {
  it('reach the result of a runner stopped by a limit, merged with returned ones and without duplicates', async () => {
    const stopped = inlineRunner(async (ctx) => {
      ctx.addArtifact({ name: 'log', path: '/tmp/x/log.txt' })
      ctx.addArtifact({ name: 'log', path: '/tmp/x/log.txt' })
      ctx.addArtifact({ name: '', path: '' })
      await sleep(2_000)
      return { finalAnswer: 'never' }
    })
    const { result, record } = await runTrial(
      baseOptions({ runner: stopped, limits: { maxWallSeconds: 0.1 } }),
    )
    expect(result?.terminatedBy).toBe('limit_time')
    expect(result?.artifacts).toEqual([{ name: 'log', path: '/tmp/x/log.txt' }])
    expect(record.warnings).toEqual([expect.stringContaining('ignored an invalid artifact')])

    const returning = inlineRunner((ctx) => {
      ctx.addArtifact({ name: 'log', path: '/l' })
      return {
        finalAnswer: 'ok',
        artifacts: [
          { name: 'log', path: '/l' },
          { name: 'out', path: '/o' },
        ],
      }
    })
    const done = await runTrial(baseOptions({ runner: returning }))
    expect(done.result?.artifacts.map((a) => a.name)).toEqual(['log', 'out'])
  })
})
