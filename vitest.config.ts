import { defineConfig } from 'vitest/config'
import { agentEvalOps } from './plugin/index.ts'

export default defineConfig({
  test: {
    projects: [
      // Vitest leaves one core free by default; the unit files mostly wait on child processes, servers and fsync,
      // so on a 2-core CI machine one worker left half the machine idle (about 1.1 cores busy over the run).
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          testTimeout: 30_000,
          maxWorkers: '100%',
        },
      },
      { plugins: [agentEvalOps()], test: { name: 'evals', include: ['evals/**/*.eval.ts'] } },
    ],
  },
})
