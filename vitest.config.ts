import { defineConfig } from 'vitest/config'
import { agentEvalOps } from './plugin/index.ts'

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/**/*.test.ts'], testTimeout: 30_000 } },
      { plugins: [agentEvalOps()], test: { name: 'evals', include: ['evals/**/*.eval.ts'] } },
    ],
  },
})
