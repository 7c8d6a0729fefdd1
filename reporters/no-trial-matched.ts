import type { TestModule } from 'vitest/node'
import { registeredTrials } from './registered-trials.ts'

export interface NoTrialMatched {
  message: string
  /** What Vitest gives a run without tests: 1, or 0 with passWithNoTests. */
  exitCode: 0 | 1
}

/**
 * A run whose -t pattern left none of the project's trials to run writes no bundle. Vitest itself exits 0 when -t
 * skips every test, so without this line the run would say nothing and pass; it fails as Vitest's "No test files
 * found" does, unless passWithNoTests. Undefined when there was no pattern or a trial was meant to run.
 */
export function noTrialMatched(input: {
  modules: readonly TestModule[]
  project: string
  testNamePattern: RegExp | undefined
  passWithNoTests: boolean
}): NoTrialMatched | undefined {
  if (!input.testNamePattern) return undefined
  if (registeredTrials(input.modules, input.project).length > 0) return undefined
  const pattern = JSON.stringify(input.testNamePattern.source)
  const head = `agentevalops: no trial matched the -t pattern ${pattern}; no bundle written`
  if (input.passWithNoTests) return { message: `${head} (exit 0: passWithNoTests).`, exitCode: 0 }
  return {
    message:
      `${head}. The pattern is a regular expression matched against each trial's name` +
      ` ("<config> > <benchmark> > <task> #<trial>" for a config): fix it, or pass --passWithNoTests to exit 0.`,
    exitCode: 1,
  }
}
