import type {
  BaselineComparison,
  PassRateGate,
  PROVIDE_KEY,
  ProvidedRun,
  TrialCaseId,
  TrialCaseSummary,
} from '../src/core/index.ts'

// Types of the values that cross between the reporter and eval workers (see src/core/channel.ts).
declare module 'vitest' {
  interface ProvidedContext {
    [PROVIDE_KEY]: ProvidedRun
  }
  interface TaskMeta {
    agentevalops?: TrialCaseSummary
    agentevalopsComparison?: BaselineComparison
    agentevalopsTrialCase?: true
    agentevalopsTrial?: TrialCaseId
    agentevalopsGate?: PassRateGate
  }
}
