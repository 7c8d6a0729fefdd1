import { expect } from 'vitest'
import { EvaluatorScore, isAgentEvalOpsError, type Evaluator, type TrialView } from '../../src/core/index.ts'

/** Runs an evaluator and checks that what it returns is a valid score once the engine adds its id, kind and latency. */
export async function evaluateChecked(evaluator: Evaluator, view: TrialView) {
  const out = await evaluator.evaluate(view)
  EvaluatorScore.parse({ ...out, evaluatorId: evaluator.id, kind: evaluator.kind, latencyMs: 0 })
  return out
}

/** What `run` threw (sync or async), or undefined when it did not. */
export async function rejection(run: () => unknown): Promise<unknown> {
  try {
    await run()
  } catch (e) {
    return e
  }
  return undefined
}

/** The message of the CONFIG_INVALID error `run` throws; fails the test when it throws anything else or nothing. */
export async function configError(run: () => unknown): Promise<string> {
  const e = await rejection(run)
  if (e === undefined) return expect.unreachable('expected a CONFIG_INVALID error')
  expect(isAgentEvalOpsError(e, 'CONFIG_INVALID'), e instanceof Error ? e.message : 'not an Error').toBe(true)
  return (e as Error).message
}
