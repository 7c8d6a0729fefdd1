// The AI SDK agent as an eval. Its model calls are answered from __recordings__/ (committed), so CI runs it with no
// key and no network:
//
//   AGENTEVALOPS_RECORD=replay npx vitest run --config examples/ai-sdk-agent/vitest.config.ts
import { matchesExpected, traceQuality } from '../../src/evaluators/index.ts'
import { evalBenchmark } from '../../plugin/index.ts'
import { landmarkAgent } from './agent.ts'
import { landmarkFeet } from './benchmark.ts'

evalBenchmark({
  benchmark: landmarkFeet,
  runner: landmarkAgent(),
  evaluators: [matchesExpected(), traceQuality()],
  limits: { maxTurns: 6, maxTokens: 20_000, maxCostUsd: 0.05, maxWallSeconds: 60 },
})
