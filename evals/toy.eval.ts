import { mockRunner } from '../src/agents/index.ts'
import { TerminatedBy } from '../src/core/index.ts'
import {
  TOY_COST_CEILING_USD,
  TOY_FORBIDDEN_TOOLS,
  toyBenchmark,
  toyLimits,
  toyScripts,
} from '../src/benchmarks/index.ts'
import {
  matchesExpected,
  stateBased,
  toolUse,
  traceQuality,
  trajectoryMatch,
} from '../src/evaluators/index.ts'
import { costCeiling, toolAccess } from '../src/policy/index.ts'
import { evalBenchmark } from '../plugin/index.ts'

// The toy benchmark exercises every outcome on purpose (wrong answers, errors, loops, limit hits), so it gates on
// the aggregate and checks that each task ends the way its scenario says it must. It is judged by the four
// evaluator kinds that need no model: the answer, the tool calls (against the tools' schemas and, where a task has
// one, its reference trajectory), the workspace the write-file task leaves, and the quality of the trace.
evalBenchmark({
  benchmark: toyBenchmark(),
  runner: mockRunner({ scripts: toyScripts }),
  evaluators: [
    matchesExpected(),
    toolUse(),
    trajectoryMatch({ requireReference: false }),
    stateBased(),
    traceQuality(),
  ],
  policy: [costCeiling({ maxUsd: TOY_COST_CEILING_USD }), toolAccess({ deny: [...TOY_FORBIDDEN_TOOLS] })],
  limits: toyLimits,
  gate: { minPassRate: 0.3 },
  assert: ({ task, record, events }, expect) => {
    const expectedOutcome = task.metadata.expectedOutcome
    if (typeof expectedOutcome === 'string') expect(record.outcome).toBe(expectedOutcome)
    const expectedEnd = task.metadata.expectedTerminatedBy
    if (typeof expectedEnd === 'string') expect(events).toTerminateWith(TerminatedBy.parse(expectedEnd))
    if (task.metadata.scenario === 'tool-loop') expect(events).not.toHaveNoLoops()
    else expect(events).toHaveNoLoops()
    expect({ task, events }).toHaveValidToolCalls(task.tools ?? [])
  },
})
