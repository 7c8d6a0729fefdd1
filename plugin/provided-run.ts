import { inject } from 'vitest'
import { AgentEvalOpsError, PROVIDE_KEY, ProvidedRun } from '../src/core/index.ts'
import type {} from '../reporters/vitest-channel.ts'

// The reporter provides a new object at every run start: each is checked once, not once per trial.
const checkedRuns = new WeakMap<object, ProvidedRun>()

function checkedRun(): ProvidedRun | undefined {
  const provided: unknown = inject(PROVIDE_KEY)
  if (provided === null || typeof provided !== 'object') return undefined
  let run = checkedRuns.get(provided)
  if (run === undefined) {
    const parsed = ProvidedRun.safeParse(provided)
    if (!parsed.success) return undefined
    run = parsed.data
    checkedRuns.set(provided, run)
  }
  return run
}

/** The run the bundle reporter opened for this Vitest run (it provides a new one at every run start). */
export function currentRun(): ProvidedRun {
  const run = checkedRun()
  if (run === undefined) {
    throw new AgentEvalOpsError('CONFIG_INVALID', 'evalBenchmark() runs outside an agentevalops project.', {
      hint: "Add agentEvalOps() to the plugins of the Vitest project that includes this file: { plugins: [agentEvalOps()], test: { name: 'evals' } }.",
    })
  }
  return run
}

/** The provided run, or undefined outside an agentevalops project (where currentRun() says what to do). */
export function providedRun(): ProvidedRun | undefined {
  return checkedRun()
}
