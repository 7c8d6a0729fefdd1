// The research assistant as an eval: `callableRunner(researchAssistant)` is the whole adapter. Each task is a
// Vitest case; the answer is checked against the task, every tool call against the tool schemas, and the trace for
// loops and made-up tool results. Run it from the repository root:
//
//   npx vitest run --config examples/callable-agent/vitest.config.ts
import { callableRunner } from '../../src/agents/callable/index.ts'
import { matchesExpected, toolUse, traceQuality } from '../../src/evaluators/index.ts'
import { evalBenchmark } from '../../plugin/index.ts'
// Types of the trace matchers (toHaveNoLoops, …); the plugin registers the matchers themselves.
import type {} from '../../plugin/matchers.ts'
import { landmarkHeights } from './benchmark.ts'
import { MODEL, researchAssistant } from './research-assistant.ts'

evalBenchmark({
  benchmark: landmarkHeights,
  runner: callableRunner(researchAssistant, { config: { model: MODEL } }),
  evaluators: [matchesExpected(), toolUse(), traceQuality()],
  // Generous for a model-free agent; with a real model these are what keep a runaway trial cheap.
  limits: { maxTurns: 8, maxTokens: 20_000, maxCostUsd: 0.05, maxWallSeconds: 30 },
  assert: ({ events, result }, expect) => {
    expect(events).toHaveNoLoops()
    expect(result?.totalCostUsd).toBeGreaterThan(0)
  },
})
