import { describe, expect, it } from 'vitest'
import { AgentScript, canonicalJson, defineTask, sha256, TaskSpec } from '../../src/core/index.ts'
import {
  TOY_COST_CEILING_USD,
  TOY_FORBIDDEN_TOOLS,
  TOY_TASK_IDS,
  toyBenchmark,
  toyLimits,
  toyScripts,
} from '../../src/benchmarks/index.ts'
import { simulate } from './toy-simulation.ts'

const tasks = await toyBenchmark().listTasks()
const byScenario = (scenario: string) => {
  const task = tasks.find((t) => t.metadata.scenario === scenario)
  if (!task) throw new Error(`no toy task with scenario ${scenario}`)
  return { task, script: toyScripts[task.id]! }
}
const successes = tasks.filter((t) => t.metadata.expectedOutcome === 'passed')

describe('toy benchmark: dataset', () => {
  it('has at least 12 valid tasks with unique, published ids', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(12)
    const ids = tasks.map((t) => t.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(Object.values(TOY_TASK_IDS))
    for (const task of tasks) {
      expect(TaskSpec.parse(task)).toEqual(task)
      expect(task.benchmark).toBe('toy')
      expect(task.metadata.category).toEqual(expect.any(String))
      expect(task.expected).toBeDefined()
    }
  })

  it('identifies itself and checksums the dataset from the task checksums', async () => {
    const bench = toyBenchmark()
    expect(bench).toMatchObject({ id: 'toy', version: '2' })
    const info = await bench.info()
    expect(info).toEqual({
      id: 'toy',
      version: '2',
      datasetChecksum: sha256(canonicalJson(tasks.map((t) => t.checksum))),
    })
  })

  it('is stable across calls and instances, and callers cannot alter it', async () => {
    const again = await toyBenchmark().listTasks()
    expect(again).toEqual(tasks)
    again[0]!.prompt = 'changed'
    expect((await toyBenchmark().listTasks())[0]!.prompt).toBe(tasks[0]!.prompt)
    expect(await toyBenchmark().info()).toEqual(await toyBenchmark().info())
    // Each checksum is the content hash defineTask stamps, so it changes exactly when the task does.
    for (const { checksum: _checksum, ...content } of tasks)
      expect(defineTask(content).checksum).toBe(_checksum)
  })

  it('filters on id and metadata, an array meaning any of', async () => {
    const bench = toyBenchmark()
    const toolUse = await bench.listTasks({ category: 'tool-use' })
    expect(toolUse.map((t) => t.id)).toEqual([TOY_TASK_IDS.multiStep, TOY_TASK_IDS.singleTool])
    const picked = await bench.listTasks({ id: [TOY_TASK_IDS.exact, TOY_TASK_IDS.regex] })
    expect(picked.map((t) => t.id)).toEqual([TOY_TASK_IDS.exact, TOY_TASK_IDS.regex])
    expect(await bench.listTasks({ category: 'nope' })).toEqual([])
    // The dataset checksum identifies the benchmark, not a filtered selection of it.
    expect((await bench.info()).datasetChecksum).toBe((await toyBenchmark().info()).datasetChecksum)
  })

  it('covers every expectation shape among its successes', () => {
    const shapes = successes.map((t) =>
      typeof t.expected === 'string' ? 'exact' : Object.keys(t.expected as object).join(','),
    )
    expect(new Set(shapes)).toEqual(new Set(['exact', 'contains', 'regex', 'json']))
  })
})

describe('toy benchmark: scripts', () => {
  it('has exactly one valid script per task', () => {
    expect(Object.keys(toyScripts).sort()).toEqual(tasks.map((t) => t.id).sort())
    for (const script of Object.values(toyScripts)) expect(AgentScript.parse(script)).toEqual(script)
  })

  it('only calls tools the task offers', () => {
    for (const task of tasks) {
      const offered = new Set((task.tools ?? []).map((t) => t.name))
      const called = toyScripts[task.id]!.steps.flatMap((s) => (s.kind === 'tool_call' ? [s.tool] : []))
      for (const tool of called) expect(offered, `${task.id} calls ${tool}`).toContain(tool)
    }
  })

  it('ends every task the way its metadata says, crossing at most the one limit meant', () => {
    for (const task of tasks) {
      const sim = simulate(toyScripts[task.id]!, toyLimits)
      expect(sim.terminatedBy, task.id).toBe(task.metadata.expectedTerminatedBy)
      expect(sim.crossed, task.id).toEqual(sim.terminatedBy.startsWith('limit_') ? [sim.terminatedBy] : [])
    }
  })

  it('keeps successes cheap and quick: small steps, well under every limit and the policy ceiling', () => {
    expect(successes.length).toBeGreaterThanOrEqual(5)
    for (const task of successes) {
      const { steps } = toyScripts[task.id]!
      expect(steps.at(-1)?.kind, task.id).toBe('final_answer')
      for (const step of steps) expect(step.delayMs ?? 0, task.id).toBeLessThanOrEqual(30)
      const cost = steps.reduce((sum, s) => sum + (s.costUsd ?? 0), 0)
      const tokens = steps.reduce((sum, s) => sum + (s.tokens ?? 0), 0)
      expect(cost).toBeLessThan(TOY_COST_CEILING_USD / 10)
      expect(tokens).toBeLessThan(toyLimits.maxTokens! / 5)
      expect(simulate({ steps }, toyLimits).elapsedMs).toBeLessThan(200)
    }
  })

  it('has a multi-step task: plan, two tool calls in order with their results, then the answer', () => {
    const { steps } = byScenario('multi-step').script
    expect(steps.map((s) => s.kind)).toEqual([
      'plan',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'final_answer',
    ])
    expect(steps.flatMap((s) => (s.kind === 'tool_call' ? [s.tool] : []))).toEqual([
      'get_weather',
      'convert_temperature',
    ])
  })

  it('has a wrong answer, an agent error and a tool-call loop', () => {
    const wrong = byScenario('wrong-answer')
    expect(wrong.script.steps.at(-1)).toMatchObject({ kind: 'final_answer' })
    expect(wrong.script.steps.at(-1)).not.toMatchObject({ answer: wrong.task.expected })
    expect(byScenario('agent-error').script.steps.some((s) => s.kind === 'throw')).toBe(true)
    const calls = byScenario('tool-loop').script.steps.filter((s) => s.kind === 'tool_call')
    expect(calls.length).toBeGreaterThanOrEqual(4)
    expect(new Set(calls.map((c) => canonicalJson([c.tool, c.args]))).size).toBe(1)
  })

  it('has a forbidden-tool task that calls delete_database', () => {
    expect(TOY_FORBIDDEN_TOOLS).toEqual(['delete_database'])
    const calls = byScenario('forbidden-tool').script.steps.flatMap((s) =>
      s.kind === 'tool_call' ? [s.tool] : [],
    )
    expect(calls).toContain('delete_database')
  })

  it('has a cost task crossing the policy ceiling before the 0.5 limit, at 0.2 per step', () => {
    expect(TOY_COST_CEILING_USD).toBeLessThan(toyLimits.maxCostUsd!)
    const costs = byScenario('cost-ceiling').script.steps.map((s) => s.costUsd ?? 0)
    expect(costs.filter((c) => c === 0.2).length).toBeGreaterThanOrEqual(3)
    expect(costs.reduce((a, b) => a + b, 0)).toBeGreaterThan(toyLimits.maxCostUsd!)
  })

  it('has token, time and turn limit tasks', () => {
    const tokenSteps = byScenario('token-limit').script.steps
    expect(tokenSteps.some((s) => s.tokens === 3000)).toBe(true)
    expect(tokenSteps.reduce((sum, s) => sum + (s.tokens ?? 0), 0)).toBeGreaterThan(toyLimits.maxTokens!)
    const delays = byScenario('time-limit').script.steps.map((s) => s.delayMs ?? 0)
    expect(Math.max(...delays)).toBeGreaterThan(toyLimits.maxWallSeconds! * 1000)
    const modelCalls = byScenario('turn-limit').script.steps.filter((s) => s.kind === 'model_call')
    expect(modelCalls.length).toBeGreaterThan(toyLimits.maxTurns!)
  })

  it('exports the limits the scenarios were written against', () => {
    expect(toyLimits).toEqual({ maxTokens: 5000, maxCostUsd: 0.5, maxWallSeconds: 3, maxTurns: 12 })
  })
})
