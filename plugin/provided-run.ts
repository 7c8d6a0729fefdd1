import { inject } from 'vitest'
import { AgentEvalOpsError, PROVIDE_KEY, ProvidedRun } from '../src/core/index.ts'
import type {} from '../reporters/vitest-channel.ts'

/** The run the bundle reporter opened for this Vitest run (it provides a new one at every run start). */
export function currentRun(): ProvidedRun {
  const parsed = ProvidedRun.safeParse(inject(PROVIDE_KEY))
  if (!parsed.success) {
    throw new AgentEvalOpsError('CONFIG_INVALID', 'evalBenchmark() runs outside an agentevalops project.', {
      hint: "Add agentEvalOps() to the plugins of the Vitest project that includes this file: { plugins: [agentEvalOps()], test: { name: 'evals' } }.",
    })
  }
  return parsed.data
}

/** The provided run, or undefined outside an agentevalops project (where currentRun() says what to do). */
export function providedRun(): ProvidedRun | undefined {
  const parsed = ProvidedRun.safeParse(inject(PROVIDE_KEY))
  return parsed.success ? parsed.data : undefined
}
