import { AgentEvalOpsError } from '../../core/index.ts'

/**
 * Every reason the inputs cannot be merged, one line each (each names the bundle, shard or trial it is about), in
 * one MERGE_REFUSED error: a user fixes them all in one go, and nothing was written.
 */
export function mergeRefused(problems: readonly string[]): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'MERGE_REFUSED',
    [...problems.map((p) => `refused: ${p}`), 'Nothing was written.'].join('\n'),
  )
}
