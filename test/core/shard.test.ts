import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  AgentEvalOpsError,
  shardFromEnvironment,
  shardOfTask,
  taskInShard,
  type Shard,
} from '../../src/core/index.ts'

const ids = Array.from({ length: 500 }, (_, i) => `task-${i}`)

describe('shardOfTask / taskInShard: the task-level partition', () => {
  it('puts every task in exactly one shard of 1..n, the same one on every call', () => {
    for (const count of [1, 2, 3, 4, 7]) {
      for (const id of ids) {
        const shard = shardOfTask('bench', id, count)
        expect(shard).toBeGreaterThanOrEqual(1)
        expect(shard).toBeLessThanOrEqual(count)
        expect(shardOfTask('bench', id, count)).toBe(shard)
        const holding = Array.from({ length: count }, (_, i) => ({ index: i + 1, count })).filter((s) =>
          taskInShard('bench', id, s),
        )
        expect(holding).toEqual([{ index: shard, count }])
      }
    }
  })

  it('is the contract hash: sha256 of benchmark NUL task, first 8 hex digits, mod n, + 1', () => {
    const expected = (benchmark: string, task: string, count: number): number =>
      (Number.parseInt(
        createHash('sha256').update(`${benchmark}\u0000${task}`).digest('hex').slice(0, 8),
        16,
      ) %
        count) +
      1
    for (const id of ids.slice(0, 50))
      expect(shardOfTask('humaneval', id, 4)).toBe(expected('humaneval', id, 4))
    // The benchmark is part of the key: the same task ids of two benchmarks spread independently.
    const a = ids.map((id) => shardOfTask('a', id, 4))
    const b = ids.map((id) => shardOfTask('b', id, 4))
    expect(a).not.toEqual(b)
  })

  it('spreads tasks over every shard, roughly evenly', () => {
    const sizes = [0, 0, 0, 0]
    for (const id of ids) sizes[shardOfTask('bench', id, 4) - 1]!++
    for (const size of sizes) {
      expect(size).toBeGreaterThan(500 / 4 / 2)
      expect(size).toBeLessThan((500 / 4) * 2)
    }
  })

  it('keeps every task when the run is not sharded', () => {
    expect(ids.every((id) => taskInShard('bench', id, null))).toBe(true)
  })
})

describe('shardFromEnvironment: the shard asked for, explicitly or by the engine', () => {
  const shardOf = (env: NodeJS.ProcessEnv, flag: Shard | null = null): Shard | null =>
    shardFromEnvironment(env, flag)

  it('is null without any shard setting', () => {
    expect(shardOf({})).toBeNull()
    expect(shardOf({ AGENTEVALOPS_SHARD: '', JOB_COMPLETION_INDEX: '' })).toBeNull()
  })

  it('maps a 0-based Kubernetes or AWS Batch index to the 1-based shard --shard names', () => {
    for (const name of ['JOB_COMPLETION_INDEX', 'AWS_BATCH_JOB_ARRAY_INDEX']) {
      for (let index = 0; index < 4; index++) {
        expect(shardOf({ [name]: String(index), AGENTEVALOPS_SHARD_COUNT: '4' })).toEqual({
          index: index + 1,
          count: 4,
        })
      }
    }
  })

  it('lets an explicit shard win: the flag, then AGENTEVALOPS_SHARD, then the engine index', () => {
    const env = { AGENTEVALOPS_SHARD: '2/3', JOB_COMPLETION_INDEX: '0', AGENTEVALOPS_SHARD_COUNT: '4' }
    expect(shardOf(env, { index: 1, count: 2 })).toEqual({ index: 1, count: 2 })
    expect(shardOf(env)).toEqual({ index: 2, count: 3 })
    expect(shardOf({ ...env, AGENTEVALOPS_SHARD: undefined })).toEqual({ index: 1, count: 4 })
  })

  it('refuses what makes no shard, naming the variable and what to do', () => {
    const cases: [NodeJS.ProcessEnv, RegExp][] = [
      [
        { JOB_COMPLETION_INDEX: '1' },
        /^JOB_COMPLETION_INDEX is set \(1\) but AGENTEVALOPS_SHARD_COUNT is not/,
      ],
      [
        { AWS_BATCH_JOB_ARRAY_INDEX: '4', AGENTEVALOPS_SHARD_COUNT: '4' },
        /^AWS_BATCH_JOB_ARRAY_INDEX=4 is out of range for 4 shards \(AGENTEVALOPS_SHARD_COUNT\): the index is 0-based, 0 to 3/,
      ],
      [
        { JOB_COMPLETION_INDEX: '-1', AGENTEVALOPS_SHARD_COUNT: '4' },
        /^JOB_COMPLETION_INDEX must be a whole number ≥ 0/,
      ],
      [
        { JOB_COMPLETION_INDEX: '0', AGENTEVALOPS_SHARD_COUNT: '0' },
        /^AGENTEVALOPS_SHARD_COUNT must be a whole number ≥ 1/,
      ],
      [{ AGENTEVALOPS_SHARD_COUNT: '4' }, /^AGENTEVALOPS_SHARD_COUNT is set \("4"\) but no shard index is/],
      [{ AGENTEVALOPS_SHARD: '5/4' }, /^AGENTEVALOPS_SHARD must be <index>\/<count>/],
    ]
    for (const [env, message] of cases) {
      let thrown: unknown
      try {
        shardOf(env)
      } catch (e) {
        thrown = e
      }
      expect(thrown, JSON.stringify(env)).toBeInstanceOf(AgentEvalOpsError)
      expect((thrown as AgentEvalOpsError).code).toBe('CONFIG_INVALID')
      expect((thrown as AgentEvalOpsError).message).toMatch(message)
      expect((thrown as AgentEvalOpsError).hint).toBeTruthy()
    }
  })
})
