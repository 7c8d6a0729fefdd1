import { createHash } from 'node:crypto'

/** A key the user gives every shard of one run (e.g. a CI pipeline id), so that its shards share a run group. */
export const RUN_KEY_ENV = 'AGENTEVALOPS_RUN_KEY'

/**
 * The key of the run this process is a part of: AGENTEVALOPS_RUN_KEY, else what the CI gives every job of one run
 * (GitHub Actions: the run id and attempt; AWS Batch: the array job's id, which its children's ids start with),
 * else null.
 */
export function runKeyFromEnv(env: NodeJS.ProcessEnv): string | null {
  const given = env[RUN_KEY_ENV]?.trim()
  if (given) return given
  const github = env.GITHUB_RUN_ID?.trim()
  if (github) return `${github}-${env.GITHUB_RUN_ATTEMPT?.trim() || '1'}`
  const batch = env.AWS_BATCH_JOB_ID?.trim().split(':')[0]
  if (batch) return batch
  return null
}

/**
 * The run group of the shards of one run: the same for every shard of the same configuration and run key, so
 * that they can be found and checked together. Without a run key it follows the configuration alone.
 */
export function runGroupId(configHash: string, runKey: string | null): string {
  const key = runKey === null ? configHash : `${configHash}\u0000${runKey}`
  return createHash('sha256').update(key).digest('hex').slice(0, 16)
}

/** metadata.runGroup: null for a run that is no shard and was given no run key. */
export function runGroupFor(
  configHash: string,
  runKey: string | null,
  shard: { index: number; count: number } | null,
): string | null {
  return runKey === null && shard === null ? null : runGroupId(configHash, runKey)
}
