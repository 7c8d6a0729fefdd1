import { AgentEvalOpsError } from './errors.ts'
import type { Shard } from './shard.ts'

/** `<index>/<count>` (1-based): the shard asked for explicitly (`agentevalops run --shard`, a GitHub matrix value). */
export const SHARD_ENV = 'AGENTEVALOPS_SHARD'
/** How many shards the run has, when the engine gives only this shard's index. */
export const SHARD_COUNT_ENV = 'AGENTEVALOPS_SHARD_COUNT'
/**
 * The 0-based index the engines give each of their copies: a Kubernetes Indexed Job's pod, an AWS Batch array
 * job's child. The first one set is used.
 */
export const ENGINE_INDEX_ENV = ['JOB_COMPLETION_INDEX', 'AWS_BATCH_JOB_ARRAY_INDEX'] as const

/**
 * The shard this process runs, or null for the whole run: the explicit one (Vitest's `--shard` flag, then
 * AGENTEVALOPS_SHARD), else the engine's index with AGENTEVALOPS_SHARD_COUNT. Throws a
 * CONFIG_INVALID error naming the variable when they do not make a shard.
 */
export function shardFromEnvironment(env: NodeJS.ProcessEnv, flag: Shard | null = null): Shard | null {
  if (flag) return flag
  const explicit = setValue(env[SHARD_ENV])
  if (explicit !== undefined) return parseShard(explicit, SHARD_ENV)
  const engine = ENGINE_INDEX_ENV.find((name) => setValue(env[name]) !== undefined)
  const rawCount = setValue(env[SHARD_COUNT_ENV])
  if (engine === undefined) {
    if (rawCount === undefined) return null
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${SHARD_COUNT_ENV} is set (${JSON.stringify(rawCount)}) but no shard index is: which shard this is is unknown.`,
      {
        hint: `Pass --shard <index>/<count> (or ${SHARD_ENV}), or run where the engine sets ${ENGINE_INDEX_ENV.join(' or ')}; unset ${SHARD_COUNT_ENV} for a whole run.`,
      },
    )
  }
  const rawIndex = setValue(env[engine])!
  if (!/^\d+$/.test(rawIndex)) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${engine} must be a whole number ≥ 0 (the engine's 0-based shard index), got ${JSON.stringify(rawIndex)}.`,
      { hint: `Leave ${engine} to the engine, or pass --shard <index>/<count> (or ${SHARD_ENV}) instead.` },
    )
  }
  if (rawCount === undefined) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${engine} is set (${rawIndex}) but ${SHARD_COUNT_ENV} is not: the number of shards is unknown.`,
      {
        hint: `Set ${SHARD_COUNT_ENV} to the number of shards (the Indexed Job's completions, the array job's size), or pass --shard <index>/<count>.`,
      },
    )
  }
  const count = /^\d+$/.test(rawCount) ? Number(rawCount) : 0
  if (count < 1) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${SHARD_COUNT_ENV} must be a whole number ≥ 1, got ${JSON.stringify(rawCount)}.`,
      { hint: `Set it to the number of shards: the Indexed Job's completions, the array job's size.` },
    )
  }
  const index = Number(rawIndex)
  if (index >= count) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${engine}=${rawIndex} is out of range for ${count} shards (${SHARD_COUNT_ENV}): the index is 0-based, 0 to ${count - 1}.`,
      { hint: `Set ${SHARD_COUNT_ENV} to the number of shards the engine starts.` },
    )
  }
  return { index: index + 1, count }
}

/** `<index>/<count>` with 1 ≤ index ≤ count; `source` names where it came from in the error. */
export function parseShard(raw: string, source: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim())
  const shard = match ? { index: Number(match[1]), count: Number(match[2]) } : null
  if (!shard || shard.index < 1 || shard.index > shard.count) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${source} must be <index>/<count> with 1 ≤ index ≤ count, got ${JSON.stringify(raw)}.`,
      { hint: 'Fix --shard (e.g. --shard 2/3).' },
    )
  }
  return shard
}

function setValue(raw: string | undefined): string | undefined {
  const value = raw?.trim()
  return value === undefined || value === '' ? undefined : value
}
