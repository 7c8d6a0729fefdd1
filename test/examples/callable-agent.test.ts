// examples/callable-agent: the hand-written research assistant, wrapped by callableRunner. Its trials run through
// the engine here (the whole trace checked step by step), and its eval file runs in a child Vitest as a user runs
// it, leaving a bundle in which every trial passed.
import { describe, expect, it } from 'vitest'
import { callableRunner } from '../../src/agents/callable/index.ts'
import type { TraceEvent } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { matchesExpected, toolUse, traceQuality } from '../../src/evaluators/index.ts'
import { costOf } from '../../src/models/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { landmarkHeights, tasks } from '../../examples/callable-agent/benchmark.ts'
import { MODEL, calculator, researchAssistant } from '../../examples/callable-agent/research-assistant.ts'
import { bundleDirs, readScores, runVitest, tail, tempDir } from '../e2e/helpers.ts'

const runner = callableRunner(researchAssistant, { config: { model: MODEL } })

async function runTask(taskId: string) {
  const task = tasks.find((t) => t.id === taskId)
  if (!task) throw new Error(`no task ${taskId}`)
  return runTrial({
    runId: 'run-example',
    benchmark: await landmarkHeights.info(),
    task,
    trial: 0,
    runner,
    evaluators: [matchesExpected(), toolUse(), traceQuality()],
    traceStore: new MemoryTraceStore(),
  })
}

const agentEvents = (events: readonly TraceEvent[]) => events.filter((e) => e.kind.startsWith('agent.'))

describe('examples/callable-agent', () => {
  it('leaves the full trace of a research trial: plan, priced model calls, paired tool calls, answer', async () => {
    const { events, result, record } = await runTask('taller')
    const trace = agentEvents(events)

    expect(trace.map((e) => e.kind)).toEqual([
      'agent.plan',
      ...['agent.model_call', 'agent.tool_call', 'agent.tool_result', 'agent.observation'],
      ...['agent.model_call', 'agent.tool_call', 'agent.tool_result', 'agent.observation'],
      ...['agent.model_call', 'agent.tool_call', 'agent.tool_result'],
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
    ])
    expect(trace.map((e) => e.step)).toEqual(trace.map((_, i) => i))
    expect(trace[0]?.payload).toEqual({
      text: 'Search for each landmark the question names, compute with the calculator, then answer.',
    })

    // Model calls: the stand-in model's token counts, priced from the table as claude-haiku-4-5.
    const calls = trace.filter((e) => e.kind === 'agent.model_call')
    expect(calls.map((e) => [e.payload.text, e.payload.stopReason])).toEqual([
      ['I need the height of the Eiffel Tower.', 'tool_use'],
      ['I need the height of the Statue of Liberty.', 'tool_use'],
      ['Now compute 330 - 93.', 'tool_use'],
      ['The answer is 237.', 'end_turn'],
    ])
    expect(calls[0]?.payload).toEqual({
      model: MODEL,
      inputTokens: 169,
      outputTokens: 20,
      text: 'I need the height of the Eiffel Tower.',
      stopReason: 'tool_use',
      status: 'ok',
      latencyMs: expect.any(Number) as number,
    })
    for (const call of calls) {
      const { inputTokens = 0, outputTokens = 0 } = call.payload
      expect(call.payload).toMatchObject({ model: MODEL, status: 'ok' })
      expect(call.tokensDelta).toBe(inputTokens + outputTokens)
      expect(call.costDeltaUsd).toBe(
        costOf(MODEL, { input_tokens: inputTokens, output_tokens: outputTokens }),
      )
      expect(call.costDeltaUsd).toBeGreaterThan(0)
    }
    // The prompt grows with the transcript, and so do the input tokens.
    const inputs = calls.map((e) => e.payload.inputTokens ?? 0)
    expect(inputs).toEqual([...inputs].sort((a, b) => a - b))

    // Tool calls and their results, paired by callId.
    const toolCalls = trace.filter((e) => e.kind === 'agent.tool_call')
    const toolResults = trace.filter((e) => e.kind === 'agent.tool_result')
    expect(toolCalls.map((e) => e.payload)).toEqual([
      { tool: 'search', args: { query: 'height of the eiffel tower' }, callId: 'call_1' },
      { tool: 'search', args: { query: 'height of the statue of liberty' }, callId: 'call_2' },
      { tool: 'calculator', args: { expression: '330 - 93' }, callId: 'call_3' },
    ])
    expect(toolResults.map((e) => e.payload)).toEqual([
      {
        tool: 'search',
        result: [{ snippet: 'The Eiffel Tower is 330 m tall.', metres: 330 }],
        callId: 'call_1',
      },
      {
        tool: 'search',
        result: [{ snippet: 'The Statue of Liberty is 93 m tall, pedestal included.', metres: 93 }],
        callId: 'call_2',
      },
      { tool: 'calculator', result: 237, callId: 'call_3' },
    ])
    for (const [i, call] of toolCalls.entries()) expect(toolResults[i]!.step).toBe(call.step + 1)

    expect(trace.at(-2)?.payload).toEqual({ answer: '237' })
    const totalTokens = calls.reduce((sum, e) => sum + e.tokensDelta, 0)
    const totalCost = calls.reduce((sum, e) => sum + e.costDeltaUsd, 0)
    expect(result).toMatchObject({
      finalAnswer: '237',
      success: true,
      terminatedBy: 'completed',
      turns: 4,
      totalTokens,
    })
    expect(result?.totalCostUsd).toBeCloseTo(totalCost, 12)
    expect(record.runner).toEqual({ name: 'researchAssistant', kind: 'callable', config: { model: MODEL } })
    expect(record.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([
      ['matches-expected', true],
      ['tool-use', true],
      ['trace-quality', true],
    ])
    expect(record.outcome).toBe('passed')
    expect(record.warnings).toEqual([])
  })

  it('passes matchesExpected on every task of its benchmark', async () => {
    for (const task of tasks) {
      const { record, result } = await runTask(task.id)
      expect(record.outcome, `${task.id}: ${result?.finalAnswer}`).toBe('passed')
    }
  })

  it('has a calculator that fails like a tool, for the agent to see', () => {
    expect(calculator('6 * 7')).toBe(42)
    expect(() => calculator('6 ** 7')).toThrow('cannot evaluate "6 ** 7"')
  })

  it('runs as an eval file in Vitest, and every trial passes into the bundle', async () => {
    const runs = await tempDir('aeo-callable-example-')
    try {
      const result = await runVitest(['run', '--config', 'examples/callable-agent/vitest.config.ts'], {
        runsDir: runs.path,
        timeoutMs: 30_000,
      })
      expect(result.code, tail(result.output)).toBe(0)
      const [bundle, ...others] = await bundleDirs(runs.path)
      expect(others).toEqual([])
      const scores = await readScores(bundle!)
      expect(scores.trials.map((t) => `${t.taskId}:${t.outcome}`).sort()).toEqual([
        'combined:passed',
        'ratio:passed',
        'taller:passed',
      ])
      expect(scores.trials.every((t) => t.runner.kind === 'callable' && t.usage.costUsd > 0)).toBe(true)
    } finally {
      await runs.remove()
    }
  }, 40_000)
})
