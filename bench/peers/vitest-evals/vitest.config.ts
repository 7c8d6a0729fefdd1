import { defineConfig } from 'vitest/config'
import { CONCURRENCY } from '../shared.ts'

export default defineConfig({
  test: {
    include: ['vitest-evals/bench.eval.ts'],
    maxConcurrency: CONCURRENCY,
    reporters: ['vitest-evals/reporter'],
  },
})
