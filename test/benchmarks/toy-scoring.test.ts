import { describe, expect, it } from 'vitest'
import type { TaskSpec } from '../../src/core/index.ts'
import {
  TOY_COST_CEILING_USD,
  TOY_FORBIDDEN_TOOLS,
  toyBenchmark,
  toyLimits,
  toyScripts,
} from '../../src/benchmarks/index.ts'
import { findLoops, matchesExpected } from '../../src/evaluators/index.ts'
import { costCeiling, toolAccess } from '../../src/policy/index.ts'
import { trace, viewOf } from '../evaluators/trace-fixture.ts'
import { simulate } from './toy-simulation.ts'

// The toy dataset is only useful if each scenario ends the way it claims under the toy evaluator and policy; this
// replays every script (as the engine is specified to) and scores it with them.
const tasks = await toyBenchmark().listTasks()
const evaluator = matchesExpected()
const policy = [costCeiling({ maxUsd: TOY_COST_CEILING_USD }), toolAccess({ deny: [...TOY_FORBIDDEN_TOOLS] })]

async function judge(task: TaskSpec) {
  const sim = simulate(toyScripts[task.id]!, toyLimits)
  const events = trace(...sim.drafts)
  const view = viewOf(events, {
    task,
    result: {
      finalAnswer: sim.finalAnswer,
      terminatedBy: sim.terminatedBy,
      success: sim.terminatedBy === 'completed',
    },
  })
  const score = await evaluator.evaluate(view)
  const verdicts = await Promise.all(policy.map(async (p) => ({ id: p.id, ...(await p.check(view)) })))
  const failedPolicies = verdicts.filter((v) => v.verdict === 'FAIL')
  return { sim, events, score, verdicts, failedPolicies }
}

describe('toy benchmark under matchesExpected and the toy policy', () => {
  it.each(tasks.map((t) => [t.id, t] as const))('%s ends as its metadata says', async (_id, task) => {
    const { score, failedPolicies, events } = await judge(task)
    // Only the loop task may loop: the toy eval asserts exactly that.
    expect(findLoops(events).pass).toBe(task.metadata.scenario !== 'tool-loop')
    switch (task.metadata.expectedOutcome) {
      case 'passed':
        expect(score.passed, score.explanation).toBe(true)
        expect(failedPolicies).toEqual([])
        break
      case 'failed':
        expect(score.passed).toBe(false)
        expect(failedPolicies).toEqual([])
        break
      case 'policy_violation':
        expect(score.passed).toBe(true)
        expect(failedPolicies.map((v) => v.id)).toEqual(['tool-access'])
        break
      case 'agent_error':
        expect(score.explanation).toBe('no final answer')
        expect(failedPolicies).toEqual([])
        break
      case 'limit_exceeded':
        expect(score.explanation).toBe('no final answer')
        // Only the cost task is also over the (lower) policy ceiling.
        expect(failedPolicies.map((v) => v.id)).toEqual(
          task.metadata.scenario === 'cost-ceiling' ? ['cost-ceiling'] : [],
        )
        break
      default:
        expect.unreachable(`${task.id} has no expectedOutcome`)
    }
  })

  it('the cost task fails the policy at the step before the engine stops it', async () => {
    const task = tasks.find((t) => t.metadata.scenario === 'cost-ceiling')!
    const { sim, failedPolicies, events } = await judge(task)
    expect(sim.terminatedBy).toBe('limit_cost')
    expect(failedPolicies).toMatchObject([{ id: 'cost-ceiling', findings: [{ citations: [1] }] }])
    // Step 2 is the last agent step: the one that crossed the 0.5 limit.
    expect(events.filter((e) => e.kind !== 'agent.terminal').at(-1)?.step).toBe(2)
  })

  it('the forbidden-tool task cites the delete_database call', async () => {
    const task = tasks.find((t) => t.metadata.scenario === 'forbidden-tool')!
    const { failedPolicies, events } = await judge(task)
    const call = events.find((e) => e.kind === 'agent.tool_call' && e.payload.tool === 'delete_database')!
    expect(failedPolicies[0]?.findings).toEqual([
      {
        severity: 'FAIL',
        message: `tool "delete_database" is denied; called at step ${call.step}`,
        citations: [call.step],
      },
    ])
  })
})
